"""File subagent: image_qa offline (facts + OCR) and against a local OpenAI-compatible server."""

from __future__ import annotations

import base64
import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from file_support import FileTools, thread_spy
from PIL import Image, ImageDraw, ImageFile, ImageFont

from fs_service import FileDomainService
from subagents.settings import Keys, ToolSettings

FONT = "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"


@pytest.fixture
def tools(disk_service: FileDomainService) -> FileTools:
    """The file tools with no vision model configured, whatever the environment says."""
    return FileTools(disk_service, settings=ToolSettings())


@pytest.fixture
def no_vision(monkeypatch):
    for name in ("QUARTET_VISION_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def with_vision(service: FileDomainService, base_url: str) -> FileTools:
    """The file tools with a vision model served at ``base_url``."""
    settings = ToolSettings(
        vision_model="vision-test",
        openai_base_url=base_url,
        keys=Keys({"OPENAI_API_KEY": "sk-test-abc123"}),
    )
    return FileTools(service, settings=settings)


def ocr_of(text: str) -> str:
    """The OCR text an offline image_qa result shows."""
    return text.split("Text found by OCR (chi_sim+eng):\n", 1)[1]


def _text_png(lines: list[str]) -> bytes:
    img = Image.new("RGB", (900, 110 * len(lines) + 40), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype(FONT, 64)
    for i, line in enumerate(lines):
        draw.text((30, 20 + 110 * i), line, fill="black", font=font)
    exif = Image.Exif()
    exif[0x010F] = "QuartetCam"  # Make
    buf = io.BytesIO()
    img.save(buf, format="PNG", exif=exif)
    return buf.getvalue()


async def test_image_qa_offline_reports_facts_and_chinese_ocr(tools, input_dir, no_vision):
    (input_dir / "scan.png").write_bytes(_text_png(["研究报告", "Revenue 2024"]))
    resp = await tools.call("image_qa", img_path="/userinput/scan.png", query="写了什么？")
    text = resp.content[0]["text"]
    assert text.startswith("/userinput/scan.png: PNG image, 900×260 pixels, mode RGB.")
    assert "No vision model was used" in text and "'写了什么？' was not answered" in text
    assert "Make=QuartetCam" in text
    ocr = ocr_of(text).replace(" ", "")
    assert "研究报告" in ocr and "Revenue2024" in ocr
    assert resp.metadata["paths"] == ["/userinput/scan.png"]
    assert "Answer from vision model" not in text


async def test_image_qa_refuses_a_file_that_is_not_an_image(
    tools, input_dir, no_vision, monkeypatch
):
    (input_dir / "fake.png").write_bytes(b"<html>not an image</html>" * 20)
    text = await tools.text("image_qa", img_path="/userinput/fake.png")
    assert text.startswith("Error:") and "not an image" in text
    png = _text_png(["截断"])
    (input_dir / "cut.png").write_bytes(png[: len(png) // 2])
    buf = io.BytesIO()
    Image.open(io.BytesIO(png)).convert("RGB").save(buf, format="JPEG")
    (input_dir / "cut.jpg").write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    # weasyprint (used to make PDFs) turns on Pillow's lenient loading of truncated files
    # process-wide; truncation must still be reported.
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    for name in ("cut.png", "cut.jpg"):
        cut = await tools.text("image_qa", img_path=f"/userinput/{name}")
        assert cut.startswith("Error:") and "truncated" in cut, (name, cut)


class _ChatServer:
    """A minimal OpenAI-compatible /v1/chat/completions endpoint on 127.0.0.1."""

    def __init__(self, status: int = 200) -> None:
        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
                )
                if status != 200:
                    payload = {"error": {"message": "model overloaded"}}
                else:
                    payload = {
                        "id": "c1",
                        "object": "chat.completion",
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": "图中写着：研究报告"},
                            }
                        ],
                    }
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


async def test_image_qa_asks_a_configured_vision_model(disk_service, input_dir):
    png = _text_png(["研究报告"])
    (input_dir / "scan.png").write_bytes(png)
    with _ChatServer() as server:
        tools = with_vision(disk_service, server.url)
        resp = await tools.call("image_qa", img_path="/userinput/scan.png", query="写了什么？")
    text = resp.content[0]["text"]
    assert text.startswith("/userinput/scan.png (PNG image, 900×150 pixels, mode RGB).")
    assert text.endswith("Answer from vision model vision-test:\n图中写着：研究报告")
    assert "No vision model was used" not in text
    assert "sk-test-abc123" not in text + json.dumps(resp.metadata, ensure_ascii=False)
    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions" and req["auth"] == "Bearer sk-test-abc123"
    assert req["body"]["model"] == "vision-test"
    parts = req["body"]["messages"][0]["content"]
    assert {"type": "text", "text": "写了什么？"} in parts
    url = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == png


async def test_image_qa_falls_back_offline_when_the_vision_model_fails(disk_service, input_dir):
    (input_dir / "scan.png").write_bytes(_text_png(["Hello"]))
    with _ChatServer(status=503) as server:
        tools = with_vision(disk_service, server.url)
        resp = await tools.call("image_qa", img_path="/userinput/scan.png")
    text = resp.content[0]["text"]
    assert "vision model vision-test failed (HTTP 503" in text and "RuntimeError" not in text
    assert "no vision model was used" in text and "Hello" in ocr_of(text)
    assert len(server.requests) == 1
    assert "sk-test-abc123" not in text + json.dumps(resp.metadata)


async def test_image_decoding_runs_off_the_event_loop(tools, input_dir, no_vision, monkeypatch):
    from subagents.file import images

    buf = io.BytesIO()
    Image.new("RGB", (64, 48), "white").save(buf, format="PNG")
    (input_dir / "small.png").write_bytes(buf.getvalue())
    calls = thread_spy(monkeypatch, images, "_decode")
    text = await tools.text("image_qa", img_path="/userinput/small.png")
    assert text.startswith("/userinput/small.png: PNG image, 64×48 pixels"), text
    assert calls == [False]
