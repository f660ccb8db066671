"""A tiny drawing description with two back-ends: SVG text and an RGB array.

A game draws its table once into a :class:`Picture` (rectangles, rounded
rectangles, circles, lines, polygons and text, each with fill, stroke, opacity and an
optional ``title`` tooltip) and the same description becomes either a self-contained
``<svg>`` element (:meth:`Picture.to_svg`: no external reference, no fetched font) or
an ``H x W x 3`` uint8 array drawn with Pillow (:meth:`Picture.to_rgb`).

Coordinates are in pixels of a ``width x height`` canvas, y pointing down. Colours are
``"#rrggbb"`` strings (or ``None`` for no fill / no stroke). Text is placed at its
baseline; ``anchor`` is ``"start"``, ``"middle"`` or ``"end"`` as in SVG.
Pictures are drawn only on request, never in the rules' hot path.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from html import escape
from typing import Any

import numpy as np

ANCHORS = ("start", "middle", "end")
_PIL_ANCHOR = {"start": "ls", "middle": "ms", "end": "rs"}
FONT_FAMILY = "DejaVu Sans, Verdana, Arial, sans-serif"


@dataclass(frozen=True, slots=True)
class Shape:
    """One drawing primitive: ``kind`` names it, ``geom`` holds its numbers."""

    kind: str  # rect, circle, line, polygon, text
    geom: tuple
    fill: str | None = None
    stroke: str | None = None
    stroke_width: float = 1.0
    opacity: float = 1.0
    title: str | None = None
    text: str = ""
    size: float = 12.0
    anchor: str = "start"
    bold: bool = False


@lru_cache(maxsize=1024)
def _colour(value: str | None, what: str) -> str | None:
    """``value`` checked as ``None`` or ``#rrggbb`` (a clear error otherwise)."""
    if value is None:
        return None
    if (not isinstance(value, str) or len(value) != 7 or value[0] != "#"
            or any(c not in "0123456789abcdefABCDEF" for c in value[1:])):
        raise ValueError(f"{what} must be '#rrggbb' or None, got {value!r}")
    return value.lower()


def _rgb(value: str) -> tuple[int, int, int]:
    return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)


class Picture:
    """A drawing of ``width x height`` pixels on a ``background`` colour."""

    def __init__(self, width: int, height: int, background: str = "#ffffff"):
        if not (isinstance(width, int) and isinstance(height, int)) or width < 1 or height < 1:
            raise ValueError(f"a picture needs positive integer sizes, got {width}x{height}")
        self.width = width
        self.height = height
        self.background = _colour(background, "background")
        self.shapes: list[Shape] = []

    # ------------------------------------------------------------ primitives
    def _add(self, kind: str, geom: tuple, fill: str | None, stroke: str | None,
             stroke_width: float, opacity: float, title: str | None, **extra: Any) -> None:
        if not 0.0 <= opacity <= 1.0:
            raise ValueError(f"opacity must be in [0, 1], got {opacity}")
        self.shapes.append(Shape(
            kind, tuple(float(v) for v in geom), _colour(fill, "fill"),
            _colour(stroke, "stroke"), float(stroke_width), float(opacity),
            None if title is None else str(title), **extra))

    def rect(self, x: float, y: float, w: float, h: float, fill: str | None = None,
             stroke: str | None = None, stroke_width: float = 1.0, radius: float = 0.0,
             opacity: float = 1.0, title: str | None = None) -> None:
        """A rectangle with top-left corner (x, y); ``radius`` rounds its corners."""
        self._add("rect", (x, y, w, h, radius), fill, stroke, stroke_width, opacity, title)

    def rounded_rect(self, x: float, y: float, w: float, h: float, radius: float = 6.0,
                     **style: Any) -> None:
        """A rectangle with rounded corners (``rect`` with a radius)."""
        self.rect(x, y, w, h, radius=radius, **style)

    def circle(self, cx: float, cy: float, r: float, fill: str | None = None,
               stroke: str | None = None, stroke_width: float = 1.0, opacity: float = 1.0,
               title: str | None = None) -> None:
        """A circle of radius ``r`` centred on (cx, cy)."""
        self._add("circle", (cx, cy, r), fill, stroke, stroke_width, opacity, title)

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = "#000000",
             stroke_width: float = 1.0, opacity: float = 1.0, title: str | None = None) -> None:
        """A straight segment from (x1, y1) to (x2, y2)."""
        self._add("line", (x1, y1, x2, y2), None, stroke, stroke_width, opacity, title)

    def polygon(self, points: list[tuple[float, float]], fill: str | None = None,
                stroke: str | None = None, stroke_width: float = 1.0, opacity: float = 1.0,
                title: str | None = None) -> None:
        """A closed polygon through ``points`` [(x, y), ...] (at least three)."""
        if len(points) < 3:
            raise ValueError(f"a polygon needs at least 3 points, got {len(points)}")
        flat = tuple(v for point in points for v in point)
        self._add("polygon", flat, fill, stroke, stroke_width, opacity, title)

    def text(self, x: float, y: float, text: str, size: float = 12.0,
             fill: str = "#000000", anchor: str = "start", bold: bool = False,
             opacity: float = 1.0, title: str | None = None) -> None:
        """``text`` on one line with its baseline at y; ``anchor`` places x."""
        if anchor not in ANCHORS:
            raise ValueError(f"anchor must be one of {ANCHORS}, got {anchor!r}")
        self._add("text", (x, y), fill, None, 1.0, opacity, title, text=str(text),
                  size=float(size), anchor=anchor, bold=bool(bold))

    # ------------------------------------------------------------------ SVG
    def to_svg(self) -> str:
        """One self-contained ``<svg>`` element (no external reference, no web font)."""
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
               f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" '
               f'font-family="{FONT_FAMILY}">']
        if self.background is not None:
            out.append(f'<rect x="0" y="0" width="{self.width}" height="{self.height}" '
                       f'fill="{self.background}"/>')
        for shape in self.shapes:
            out.append(_svg_shape(shape))
        out.append("</svg>")
        return "\n".join(out)

    # ------------------------------------------------------------------ RGB
    def to_rgb(self, scale: float = 1.0) -> np.ndarray:
        """The picture as an ``H x W x 3`` uint8 array (H, W: the size times ``scale``)."""
        from PIL import Image, ImageDraw  # deferred: Pillow

        if scale <= 0:
            raise ValueError(f"scale must be positive, got {scale}")
        size = (max(1, round(self.width * scale)), max(1, round(self.height * scale)))
        image = Image.new("RGBA", size, (*_rgb(self.background or "#ffffff"), 255))
        draw = ImageDraw.Draw(image)
        for shape in self.shapes:
            if shape.opacity >= 1.0:
                _pil_shape(draw, shape, scale, 255)
            elif shape.opacity > 0.0:
                layer = Image.new("RGBA", size, (0, 0, 0, 0))
                _pil_shape(ImageDraw.Draw(layer), shape, scale, round(255 * shape.opacity))
                image.alpha_composite(layer)
        return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _svg_shape(shape: Shape) -> str:
    """The SVG element of one shape, with its ``<title>`` tooltip if any."""
    style = []
    if shape.kind != "line":
        style.append(f'fill="{shape.fill or "none"}"')
    if shape.stroke is not None:
        style.append(f'stroke="{shape.stroke}" stroke-width="{_num(shape.stroke_width)}"')
    if shape.opacity < 1.0:
        style.append(f'opacity="{shape.opacity:.3g}"')
    attrs = " ".join(style)
    g = shape.geom
    if shape.kind == "rect":
        x, y, w, h, r = g
        rounded = f' rx="{_num(r)}"' if r > 0 else ""
        head = (f'<rect x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}"'
                f'{rounded} {attrs}')
    elif shape.kind == "circle":
        head = f'<circle cx="{_num(g[0])}" cy="{_num(g[1])}" r="{_num(g[2])}" {attrs}'
    elif shape.kind == "line":
        head = (f'<line x1="{_num(g[0])}" y1="{_num(g[1])}" x2="{_num(g[2])}" '
                f'y2="{_num(g[3])}" {attrs}')
    elif shape.kind == "polygon":
        points = " ".join(f"{_num(g[i])},{_num(g[i + 1])}" for i in range(0, len(g), 2))
        head = f'<polygon points="{points}" {attrs}'
    else:  # text
        weight = ' font-weight="bold"' if shape.bold else ""
        head = (f'<text x="{_num(g[0])}" y="{_num(g[1])}" font-size="{_num(shape.size)}" '
                f'text-anchor="{shape.anchor}"{weight} {attrs}')
        title = f"<title>{escape(shape.title, quote=False)}</title>" if shape.title else ""
        return f"{head}>{title}{escape(shape.text, quote=False)}</text>"
    if shape.title:
        # every kind but text is named as its SVG element
        return f"{head}><title>{escape(shape.title, quote=False)}</title></{shape.kind}>"
    return head + "/>"


@lru_cache(maxsize=64)
def _font(size: int, bold: bool):
    """Pillow's built-in scalable font at ``size`` pixels (a bold face where installed)."""
    from PIL import ImageFont  # deferred: Pillow

    if bold:
        for name in ("DejaVuSans-Bold.ttf", "Arial Bold.ttf", "arialbd.ttf"):
            try:
                return ImageFont.truetype(name, size)
            except OSError:
                continue
    else:
        for name in ("DejaVuSans.ttf", "Arial.ttf", "arial.ttf"):
            try:
                return ImageFont.truetype(name, size)
            except OSError:
                continue
    return ImageFont.load_default(size=size)


def _pil_shape(draw, shape: Shape, scale: float, alpha: int) -> None:
    """Draw one shape on a Pillow RGBA canvas at ``scale`` with ``alpha``."""
    fill = None if shape.fill is None else (*_rgb(shape.fill), alpha)
    stroke = None if shape.stroke is None else (*_rgb(shape.stroke), alpha)
    width = max(1, round(shape.stroke_width * scale)) if stroke is not None else 0
    g = [v * scale for v in shape.geom]
    if shape.kind == "rect":
        x, y, w, h = g[:4]
        box = (x, y, x + max(w, 0.0) - 1, y + max(h, 0.0) - 1)
        if box[2] < box[0] or box[3] < box[1]:
            return
        if g[4] > 0:
            radius = min(g[4], w / 2, h / 2)
            draw.rounded_rectangle(box, radius=radius, fill=fill, outline=stroke, width=width)
        else:
            draw.rectangle(box, fill=fill, outline=stroke, width=width)
    elif shape.kind == "circle":
        cx, cy, r = g
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill, outline=stroke, width=width)
    elif shape.kind == "line":
        if stroke is not None:
            draw.line(g, fill=stroke, width=width)
    elif shape.kind == "polygon":
        points = [(g[i], g[i + 1]) for i in range(0, len(g), 2)]
        draw.polygon(points, fill=fill, outline=stroke, width=width)
    else:  # text
        font = _font(max(1, round(shape.size * scale)), shape.bold)
        draw.text((g[0], g[1]), shape.text, font=font, fill=fill,
                  anchor=_PIL_ANCHOR[shape.anchor])


__all__ = ["Picture", "Shape"]
