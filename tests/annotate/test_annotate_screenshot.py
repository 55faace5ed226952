"""The annotated page as a person sees it: headless Chromium renders it to a PNG, and the
coloured stripes down its left edge follow the page's line kinds, in order and height.

Needs Debian's `chromium` package (`apt-get install chromium`); skipped without it."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib

import numpy as np
import pytest
from annotate_helpers import every_kind_jit

from ember.annotate.page import COLOURS, STRIPE_WIDTH

LINE_HEIGHT = 20  # pixels per source line (the page's style)


def _browser() -> str | None:
    return next(
        (found for name in ("chromium", "chromium-browser") if (found := shutil.which(name))),
        None,
    )


def read_png(data: bytes, columns: int) -> np.ndarray:
    """The left `columns` pixels of an 8-bit RGB or RGBA PNG, (height, columns, channels):
    PNG's filters read only pixels to the left and above, so the rest need not be decoded."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks, header = 8, [], None
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        at += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0
    channels = 3 if colour == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(chunks)), dtype=np.uint8)
    rows = raw.reshape(height, 1 + width * channels)
    image = np.zeros((height, columns * channels), dtype=np.int32)
    for y in range(height):
        line = rows[y, 1 : 1 + columns * channels].astype(np.int32)
        _unfilter(rows[y, 0], line, image, y, channels)
    return image.reshape(height, columns, channels).astype(np.uint8)


def _unfilter(kind: int, line: np.ndarray, image: np.ndarray, y: int, bpp: int) -> None:
    above = image[y - 1] if y else np.zeros_like(line)
    if kind == 0:
        image[y] = line
    elif kind == 2:
        image[y] = (line + above) & 0xFF
    else:  # Sub, Average, Paeth depend on the pixel to the left: byte by byte
        out = image[y]
        for x in range(len(line)):
            left = int(out[x - bpp]) if x >= bpp else 0
            up = int(above[x])
            corner = int(above[x - bpp]) if x >= bpp else 0
            if kind == 1:
                predicted = left
            elif kind == 3:
                predicted = (left + up) // 2
            else:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predicted = left if pa <= pb and pa <= pc else up if pb <= pc else corner
            out[x] = (int(line[x]) + predicted) & 0xFF


def _stripe_runs(image: np.ndarray) -> list[tuple[str, int]]:
    """(kind, height in pixels) of each run of one stripe colour down the left edge."""
    by_colour = {
        tuple(int(stripe[i : i + 2], 16) for i in (1, 3, 5)): kind
        for kind, (_, stripe) in COLOURS.items()
    }
    runs: list[tuple[str, int]] = []
    for pixel in image[:, STRIPE_WIDTH // 2, :3]:
        kind = by_colour.get(tuple(int(c) for c in pixel))
        if kind is None:
            continue
        if runs and runs[-1][0] == kind:
            runs[-1] = (kind, runs[-1][1] + 1)
        else:
            runs.append((kind, 1))
    return runs


def test_screenshot_shows_the_shaded_lines_in_place(tmp_path):
    browser = _browser()
    if browser is None:
        pytest.skip("no headless Chromium: apt-get install chromium")
    every_kind_jit(np.linspace(0.0, 1.0, 9), 4)
    page = every_kind_jit.inspect_types(pretty=True)
    (html_path, png_path) = (tmp_path / "page.html", tmp_path / "page.png")
    page.save(str(html_path))
    subprocess.run(
        [
            browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--screenshot={png_path}", "--window-size=1000,1400", html_path.as_uri(),
        ],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    runs = _stripe_runs(read_png(png_path.read_bytes(), STRIPE_WIDTH))
    expected: list[tuple[str, int]] = []
    for line in page.views[0].lines:  # consecutive lines of one kind make one band
        if line.kind is None:
            continue
        if expected and expected[-1][0] == line.kind:
            expected[-1] = (line.kind, expected[-1][1] + 1)
        else:
            expected.append((line.kind, 1))
    assert [kind for kind, _ in runs] == [kind for kind, _ in expected]
    for (_, pixels), (_, lines) in zip(runs, expected):
        assert lines * LINE_HEIGHT <= pixels <= lines * (LINE_HEIGHT + 4)
