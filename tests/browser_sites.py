"""Small web sites served on 127.0.0.1 by the standard library, for the Browser tests.

``SiteServer`` runs a ThreadingHTTPServer in a thread and records every request it gets,
so tests can check both what a tool returned and what traffic it caused.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Handler = Callable[[BaseHTTPRequestHandler], None]

ARTICLE_PARAGRAPHS = [
    "The Quartet Tea Company was founded in 1987 in Hangzhou by three brothers.",
    "Its first shop sold only Longjing green tea, picked on the hills west of the lake.",
    "By 1995 the company ran twelve shops and exported tea to Japan and Germany.",
    "The company's museum opened in 2004 and shows tools used for roasting leaves by hand.",
    "Today the company employs about 450 people and publishes an annual harvest report.",
]

ARTICLE_HTML = """<!doctype html>
<html><head><meta charset="utf-8"><title>Quartet Tea Company — History</title></head>
<body>
<header><nav><a href="/">Home</a> | <a href="/shop">Shop</a>
 | <a href="/login">Log in</a></nav></header>
<main><article>
<h1>History of the Quartet Tea Company</h1>
{paragraphs}
<h2>Shops by year</h2>
<table>
<tr><th>Year</th><th>Shops</th></tr>
<tr><td>1987</td><td>1</td></tr>
<tr><td>1995</td><td>12</td></tr>
<tr><td>2020</td><td>31</td></tr>
</table>
<p>See also the <a href="/static/harvest.html">harvest report</a> for this year's yields.</p>
</article></main>
<aside>Subscribe to our newsletter for offers!</aside>
<footer>Copyright 2024 Quartet Tea. All rights reserved.</footer>
</body></html>
""".format(paragraphs="\n".join(f"<p>{p}</p>" for p in ARTICLE_PARAGRAPHS))

JS_SECRET = "The rendered note says the harvest of 2023 weighed 8,400 kilograms."
JS_APP_HTML = """<!doctype html>
<html><head><meta charset="utf-8"><title>Harvest app</title></head>
<body><div id="root"></div>
<script>
const paragraphs = [
  "Harvest dashboard. This page is drawn by a script in the browser.",
  "{secret}",
  "Spring picking started on the fourth of April and lasted for three weeks.",
  "The autumn picking was smaller because of a dry summer on the western hills.",
];
const root = document.getElementById("root");
for (const text of paragraphs) {{
  const p = document.createElement("p");
  p.textContent = text;
  root.appendChild(p);
}}
</script>
<script>/* analytics bundle */ {filler}</script>
</body></html>
""".format(secret=JS_SECRET, filler="var x=1;" * 200)

FETCH_APP_HTML = """<!doctype html>
<html><head><title>Loader</title></head><body><main id="out">Loading…</main>
<script>
fetch("/api/story.json").then(r => r.json()).then(d => {
  document.getElementById("out").innerHTML = d.paragraphs.map(p => "<p>" + p + "</p>").join("");
});
</script></body></html>
"""
STORY = [
    "The story loaded from the API tells how the first shop survived the flood of 1991.",
    "Water reached the counters, yet the tea stored upstairs stayed dry and was sold that winter.",
    "The brothers later moved the warehouse to higher ground near the railway station.",
]

FORBIDDEN_TEXT = "Members area: the 2024 tasting notes praise the smoky Lapsang batch."
FORBIDDEN_HTML = f"""<!doctype html><html><head><title>Tasting notes</title></head><body>
<article><h1>Tasting notes</h1><p>{FORBIDDEN_TEXT}</p>
<p>The jasmine pearls were rated best for aroma by the panel of twelve tasters this year.</p>
<p>Next tasting: the first Saturday of October, in the shop on the lake front.</p>
</article></body></html>"""

FORM_HTML = """<!doctype html>
<html><head><title>Order form</title></head><body>
<h1>Order tea</h1>
<form onsubmit="return false">
<label for="name">Your name</label> <input id="name" name="name" type="text">
<button id="go" type="button">Send order</button>
</form>
<p id="out"></p>
<script>
document.getElementById("go").addEventListener("click", () => {
  const name = document.getElementById("name").value;
  document.getElementById("out").textContent = "Thank you, " + name + "!";
  setTimeout(() => {
    const done = document.createElement("div");
    done.id = "confirmed";
    done.textContent = "Order confirmed for " + name;
    document.body.appendChild(done);
  }, 150);
});
</script></body></html>
"""

ZH_PARAGRAPHS = [
    "龙井茶是中国著名的绿茶，产于浙江省杭州市西湖一带。",
    "龙井茶的采摘时间一般在每年三月下旬到四月上旬，以清明前采摘的明前茶最为珍贵。",
    "炒制龙井茶需要经过杀青、理条、辉锅等十道工序，全部由手工完成。",
    "西湖龙井的主要产区包括狮峰、龙井、云栖、虎跑和梅家坞。",
    "普洱茶产于云南，属于后发酵茶，与龙井的风味完全不同。",
]
ZH_HTML = """<!doctype html><html lang="zh"><head><meta charset="{charset}">
<title>龙井茶简介</title></head>
<body><article><h1>龙井茶简介</h1>{paragraphs}</article></body></html>"""


def zh_page(charset: str = "utf-8") -> bytes:
    html = ZH_HTML.format(charset=charset, paragraphs="".join(f"<p>{p}</p>" for p in ZH_PARAGRAPHS))
    return html.encode(charset)


def big_page(paragraphs: int) -> bytes:
    body = "".join(
        f"<p>Section {i}: the ledger lists shipments of oolong, black and green tea, with "
        f"weights, dates and the names of the ships that carried them abroad.</p>"
        for i in range(paragraphs)
    )
    head = "<html><head><title>Big ledger</title></head>"
    return f"{head}<body><article>{body}</article></body></html>".encode()


def bench_page(i: int) -> bytes:
    """A realistic article page (~15 KB) with navigation, a table and links."""
    paras = "".join(
        f"<p>Paragraph {j} of report {i}: tea gardens on terrace {j % 7} produced "
        f"{(i * 37 + j * 11) % 900 + 100} kilograms this season, and the pickers noted "
        f"weather, soil moisture and leaf size for the buyers' review.</p>"
        for j in range(40)
    )
    rows = "".join(f"<tr><td>{j}</td><td>{(i + j) % 50}</td></tr>" for j in range(20))
    links = "".join(
        f'<li><a href="/bench/{(i + k) % 500}.html">Report {k}</a></li>' for k in range(30)
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>Report {i}</title>"
        f"<style>body{{font-family:serif}}</style></head><body><header><nav><ul>{links}</ul>"
        f"</nav></header><main><article><h1>Garden report {i}</h1>{paras}<table>"
        f"<tr><th>Terrace</th><th>Tonnes</th></tr>{rows}</table></article></main>"
        f"<footer>Footer text</footer></body></html>"
    ).encode()


def bench_js_page(i: int) -> bytes:
    """A page whose text exists only after its script runs."""
    paras = [
        f"Rendered paragraph {j} of report {i}: terrace {j % 7} yielded "
        f"{(i * 37 + j * 11) % 900 + 100} kilograms."
        for j in range(15)
    ]
    script = (
        "const r=document.getElementById('root');"
        f"for(const t of {paras!r}){{const p=document.createElement('p');p.textContent=t;"
        "r.appendChild(p);}"
    )
    return (
        f"<!doctype html><html><head><title>JS report {i}</title></head><body>"
        f"<div id='root'></div><script>{script}</script></body></html>"
    ).encode()


class _QuietServer(ThreadingHTTPServer):
    """Clients that hang up early (a size cap, a refused redirect) are not errors here."""

    def handle_error(self, request: object, client_address: object) -> None:
        pass


@dataclass
class SiteServer:
    """A ThreadingHTTPServer on ``host`` (``port``, or any free one) with a route table and
    a request log."""

    host: str = "127.0.0.1"
    routes: dict[str, Handler] = field(default_factory=dict)
    hits: list[tuple[str, str]] = field(default_factory=list)
    port: int = 0

    def __post_init__(self) -> None:
        site = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                site.hits.append((path, self.headers.get("User-Agent", "")))
                handler = site.routes.get(path)
                if handler is None:
                    send(self, 404, b"<html><body><p>Not found</p></body></html>")
                else:
                    handler(self)

        self._server = _QuietServer((self.host, self.port), _Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        return self.base + path

    def start(self) -> SiteServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def paths(self) -> list[str]:
        return [p for p, _ in self.hits]


def send(
    handler: BaseHTTPRequestHandler,
    status: int,
    body: bytes,
    content_type: str = "text/html; charset=utf-8",
    headers: dict[str, str] | None = None,
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def page(body: bytes, status: int = 200, content_type: str = "text/html; charset=utf-8") -> Handler:
    return lambda h: send(h, status, body, content_type)


def redirect(location: str, status: int = 302) -> Handler:
    return lambda h: send(h, status, b"", headers={"Location": location})


def browsers_only(body: bytes) -> Handler:
    """200 for a browser user agent, 403 with a short refusal for anything else."""

    def handle(h: BaseHTTPRequestHandler) -> None:
        if "Chrome" in h.headers.get("User-Agent", ""):
            send(h, 200, body)
        else:
            send(h, 403, b"<html><body><p>Access denied.</p></body></html>")

    return handle


def chunked(total: int, chunk: int = 64 * 1024) -> Handler:
    """A body of ``total`` bytes sent with chunked encoding (no Content-Length)."""

    def handle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/octet-stream")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        sent = 0
        block = b"x" * chunk
        try:
            while sent < total:
                piece = block[: min(chunk, total - sent)]
                h.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                sent += len(piece)
            h.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

    return handle


def lying_length(declared: int, actual: bytes) -> Handler:
    """Declares ``declared`` bytes, sends ``actual`` and closes the connection."""

    def handle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/pdf")
        h.send_header("Content-Length", str(declared))
        h.send_header("Connection", "close")
        h.end_headers()
        h.wfile.write(actual)
        h.wfile.flush()
        h.close_connection = True

    return handle


def build_site(trap: SiteServer) -> SiteServer:
    """The test site; ``trap`` is a server on another loopback address that must stay unvisited."""
    site = SiteServer()
    r = site.routes
    story = json.dumps({"paragraphs": STORY}).encode()
    r["/static/article.html"] = page(ARTICLE_HTML.encode())
    r["/static/notes.txt"] = page(
        b"Plain notes: steep green tea at 80 degrees.\n" * 5, 200, "text/plain"
    )
    r["/static/image.png"] = page(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, 200, "image/png")
    r["/js/app.html"] = page(JS_APP_HTML.encode())
    r["/js/fetch.html"] = page(FETCH_APP_HTML.encode())
    r["/api/story.json"] = page(story, 200, "application/json")
    r["/redirect/1"] = redirect("/redirect/2", 301)
    r["/redirect/2"] = redirect(site.url("/redirect/3"), 302)
    r["/redirect/3"] = redirect("/static/article.html", 307)
    r["/redirect/loop"] = redirect("/redirect/loop")
    r["/members/notes.html"] = browsers_only(FORBIDDEN_HTML.encode())
    r["/status/403.html"] = page(b"<html><body><p>Forbidden.</p></body></html>", 403)
    r["/status/404.html"] = page(b"<html><body><p>Nothing here.</p></body></html>", 404)
    r["/big.html"] = page(big_page(40_000))
    r["/zh/longjing.html"] = page(zh_page("utf-8"))
    r["/zh/longjing-gbk.html"] = page(zh_page("gbk"), 200, "text/html")
    r["/form.html"] = page(FORM_HTML.encode())
    r["/download/table.csv"] = page(
        b"year,shops\n1987,1\n1995,12\n", 200, "text/csv; charset=utf-8"
    )
    r["/download/endless"] = chunked(8 * 1024 * 1024)
    r["/download/short"] = lying_length(5_000_000, b"%PDF-1.4 only the start of a file")
    r["/download/huge-declared"] = lying_length(200 * 1024 * 1024, b"")
    r["/download/via-redirect"] = redirect(trap.url("/secret.bin"))
    r["/escape/loopback"] = redirect(trap.url("/secret"))
    r["/escape/metadata"] = redirect("http://169.254.169.254/latest/meta-data/")
    r["/escape/private"] = redirect("http://10.0.0.1/admin")
    r["/escape/scheme"] = redirect("file:///etc/passwd")
    r["/escape/js-redirect"] = redirect(trap.url("/secret-js"))
    r["/escape/page-with-trap.html"] = page(
        f"""<html><body><p>A page that tries to load a private resource.</p>
        <script>fetch("{trap.url("/beacon")}").catch(() => {{}});</script>
        <img src="{site.url("/escape/loopback")}"></body></html>""".encode()
    )
    for i in range(500):
        r[f"/bench/{i}.html"] = page(bench_page(i))
        r[f"/benchjs/{i}.html"] = page(bench_js_page(i))
    trap.routes["/secret"] = page(b"<html><body><p>internal secret</p></body></html>")
    return site
