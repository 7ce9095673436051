"""image_qa: answer a question about an image with a vision model, or describe it offline."""

import asyncio
import base64
import io
import os
import shutil
import subprocess
import warnings
from typing import Any

import httpx
from agentscope.tool import ToolResponse
from PIL import ExifTags, Image, UnidentifiedImageError

from ..failures import plain_reason
from ..results import ok
from ..secrets import scrub
from ..settings import ToolSettings
from .guard import ToolInputError, file_tool
from .limits import (
    MAX_BODY_CHARS,
    MAX_IMAGE_BYTES,
    MAX_IMAGE_PIXELS,
    MAX_OCR_CHARS,
    OCR_TIMEOUT_S,
    VISION_MAX_SIDE,
    VISION_TIMEOUT_S,
    clip,
)
from .reading import read_once

OCR_LANGS = "chi_sim+eng"
DEFAULT_QUESTION = "Describe this image in detail, including any text it contains."


def vision_config(settings: object) -> dict[str, str] | None:
    """The vision model of the run's settings, or None when none is configured."""
    if not isinstance(settings, ToolSettings):
        return None
    model = settings.vision_model
    api_key = settings.keys.get_key("OPENAI_API_KEY") or ""
    if not model or not api_key:
        return None
    base = settings.openai_base_url or "https://api.openai.com/v1"
    return {"model": model, "api_key": api_key, "base_url": base.rstrip("/")}


def _decode(data: bytes, path: str) -> Image.Image:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
            if img.width * img.height > MAX_IMAGE_PIXELS:
                raise ToolInputError(
                    f"Error: {path} is {img.width}×{img.height} pixels, more than "
                    f"{MAX_IMAGE_PIXELS:,}; refusing to decode it. Use a smaller image."
                )
            # verify() walks the whole file (PNG chunks and checksums); it catches
            # truncation even when another library set ImageFile.LOAD_TRUNCATED_IMAGES.
            Image.open(io.BytesIO(data)).verify()
            if img.format == "JPEG" and not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
                raise OSError("the JPEG end marker is missing; the image is truncated")
            img.load()
    except ToolInputError:
        raise
    except (UnidentifiedImageError, Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ToolInputError(
            f"Error: {path} is not an image this tool can read (PNG, JPEG, GIF, BMP, TIFF, "
            "WebP). Check its type with get_file_info; for PDFs use pdf_read_text."
        ) from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise ToolInputError(
            f"Error: {path} is a damaged or truncated image ({clip(str(exc), 160)})."
        ) from None
    return img


def _exif(img: Image.Image) -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        exif = img.getexif()
    except Exception:  # damaged EXIF blocks are common and harmless to skip
        return out
    for tag, value in exif.items():
        name = ExifTags.TAGS.get(tag, str(tag))
        if isinstance(value, bytes):
            continue
        out[name] = clip(str(value), 200)
    return out


def _tesseract(args: list[str], data: bytes | None = None) -> str:
    """What ``tesseract ARGS`` prints, given ``data`` on its standard input.

    Tesseract spends most of its time spinning up OpenMP threads; its own process (and
    only it) is held to one. RuntimeError when it fails; the timeout kills it.
    """
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    done = subprocess.run(
        ["tesseract", *args],
        input=data,
        capture_output=True,
        timeout=OCR_TIMEOUT_S,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode("utf-8", "replace").strip()[-200:])
    return done.stdout.decode("utf-8", "replace")


def _ocr_language() -> tuple[str, str]:
    """The languages OCR reads in here (Chinese and English when both are installed,
    else English), and where tesseract says it found its language data (the first line
    of its list)."""
    listed = _tesseract(["--list-langs"]).splitlines()
    langs = set(listed[1:])
    return (OCR_LANGS if {"chi_sim", "eng"} <= langs else "eng"), (listed[0] if listed else "")


def _ocr_text(data: bytes, path: str, lang: str, tesseract: str) -> str:
    """The text tesseract reads in the picture ``data`` (checked by :func:`_decode`
    already) in ``lang``, a line per line (``tesseract``, which one it is, is part of
    the result's key in the cache).

    Raises:
        Exception: tesseract is missing, failed or timed out, or the mode is unsupported.
    """
    img = Image.open(io.BytesIO(data))
    rgb = img.convert("RGB") if img.mode not in ("RGB", "L") else img
    png = io.BytesIO()
    rgb.save(png, format="PNG")
    text = _tesseract(["stdin", "stdout", "-l", lang], png.getvalue())
    lines = [ln.strip() for ln in text.splitlines()]
    return "\n".join(ln for ln in lines if ln)


def _tesseract_identity(data_dir: str) -> str:
    """Which tesseract reads: its path, size and modification time, and where it found
    its language data (``data_dir``, as its list of languages says)."""
    found = shutil.which("tesseract")
    if found is None:
        return "missing"
    info = os.stat(found)
    return f"{found}:{info.st_size}:{info.st_mtime_ns}:{data_dir}"


async def _ocr(data: bytes, path: str) -> tuple[str, str | None]:
    """OCR text and, when OCR could not run, why not. The text of the same bytes read
    by the same tesseract in the same languages is taken from the run's page cache when
    it holds it (see :mod:`.reading`)."""
    try:
        lang, data_dir = await asyncio.to_thread(_ocr_language)
        tesseract = _tesseract_identity(data_dir)
        text = await read_once(_ocr_text, path, data, lang, tesseract, libraries=("pillow",))
    except Exception as exc:  # missing binary, timeout, unsupported mode
        return "", f"OCR did not run ({clip(plain_reason(exc), 120)})"
    return text, None


def _vision_bytes(img: Image.Image, data: bytes) -> tuple[bytes, str]:
    """The picture to send: the original if small and common, else a re-encoded copy."""
    fmt = (img.format or "").upper()
    if fmt in ("PNG", "JPEG", "GIF", "WEBP") and max(img.size) <= VISION_MAX_SIDE:
        return data, f"image/{fmt.lower()}"
    copy = img.convert("RGB")
    copy.thumbnail((VISION_MAX_SIDE, VISION_MAX_SIDE))
    buf = io.BytesIO()
    copy.save(buf, format="PNG")
    return buf.getvalue(), "image/png"


async def _ask_vision(cfg: dict[str, str], picture: bytes, mime: str, question: str) -> str:
    payload = {
        "model": cfg["model"],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": question},
                    {
                        "type": "image_url",
                        "image_url": {
                            "url": f"data:{mime};base64,{base64.b64encode(picture).decode()}"
                        },
                    },
                ],
            }
        ],
    }
    headers = {"Authorization": f"Bearer {cfg['api_key']}"}
    async with httpx.AsyncClient(timeout=VISION_TIMEOUT_S) as http:
        resp = await http.post(f"{cfg['base_url']}/chat/completions", json=payload, headers=headers)
    if resp.status_code != 200:
        raise RuntimeError(f"HTTP {resp.status_code}: {clip(resp.text, 200)}")
    content = resp.json()["choices"][0]["message"]["content"]
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        raise RuntimeError("the model returned no text")
    return content.strip()


def _scrub(text: str, cfg: dict[str, str] | None) -> str:
    return scrub(text, [cfg["api_key"]] if cfg and cfg["api_key"] else [])


@file_tool
async def image_qa(
    img_path: str, service: object, query: str | None = None, settings: object = None
) -> ToolResponse:
    """Answer a question about an image, or describe it (PNG, JPEG, GIF, BMP, TIFF, WebP).

    With a vision model configured it looks at the picture. Without one it reports what
    can be known offline: format, pixel size, colour mode, EXIF data and the text found
    by OCR (Chinese and English); it says so when no vision model was used.

    Args:
        img_path (str): Logical absolute path of the image, e.g. /userinput/chart.png.
        query (str | None): The question about the image, e.g. "What is the total in the
            table?". Omit it for a general description.
    """
    data = await service.read_bytes(img_path, max_bytes=MAX_IMAGE_BYTES)
    img = await asyncio.to_thread(_decode, data, img_path)
    facts: dict[str, Any] = {
        "format": img.format or "unknown",
        "width": img.width,
        "height": img.height,
        "mode": img.mode,
    }
    exif = _exif(img)
    desc = f"{facts['format']} image, {img.width}×{img.height} pixels, mode {img.mode}"
    cfg = vision_config(settings)
    vision_error = None
    if cfg is not None:
        picture, mime = await asyncio.to_thread(_vision_bytes, img, data)
        try:
            answer = await _ask_vision(cfg, picture, mime, query or DEFAULT_QUESTION)
        except (httpx.HTTPError, RuntimeError, KeyError, IndexError, TypeError, ValueError) as exc:
            vision_error = _scrub(clip(plain_reason(exc), 200), cfg)
        else:
            answer = clip(_scrub(answer, cfg), MAX_BODY_CHARS)
            return ok(
                f"{img_path} ({desc}). Answer from vision model {cfg['model']}:\n{answer}",
                paths=[img_path],
            )
    ocr_text, ocr_problem = await _ocr(data, img_path)
    if vision_error:
        why = (
            f"The vision model {cfg['model']} failed ({vision_error}), so no vision model was used."
        )
    else:
        why = (
            "No vision model was used (none is configured: set QUARTET_VISION_MODEL with "
            "OPENAI_API_KEY and OPENAI_BASE_URL to enable one)."
        )
    lines = [f"{img_path}: {desc}.", why]
    if query:
        lines.append(
            f"The question {clip(query, 500)!r} was not answered by looking at the picture; "
            "below is what can be known offline."
        )
    if exif:
        lines.append("EXIF: " + "; ".join(f"{k}={v}" for k, v in list(exif.items())[:30]))
    if ocr_problem:
        lines.append(ocr_problem + ".")
    elif ocr_text:
        shown = ocr_text[:MAX_OCR_CHARS]
        lines.append(f"Text found by OCR ({OCR_LANGS}):\n{shown}")
        if len(ocr_text) > MAX_OCR_CHARS:
            lines.append(f"[… {len(ocr_text) - MAX_OCR_CHARS:,} more OCR characters not shown.]")
    else:
        lines.append("OCR found no text.")
    return ok("\n".join(lines), paths=[img_path])
