"""What a screenshot shows in the tray: boxes, contrast, likeness.

Pixbufs are GdkPixbuf RGB(A) grabs of the whole screen.  Rows that are
byte-for-byte equal are skipped at C speed, so comparing two 1024x768
grabs costs only the rows that changed.
"""
import gi
gi.require_version('GdkPixbuf', '2.0')
from gi.repository import GdkPixbuf  # noqa: E402

# A pixel differs when its R, G and B differences add up to more than this.
DIFF_THRESHOLD = 40


def load_png(data):
    loader = GdkPixbuf.PixbufLoader()
    loader.write(data)
    loader.close()
    return loader.get_pixbuf()


def _rows(pixbuf):
    data = pixbuf.get_pixels()
    stride, n = pixbuf.get_rowstride(), pixbuf.get_n_channels()
    width = pixbuf.get_width()
    return data, stride, n, width


def rgb(pixbuf, x, y):
    data, stride, n, _ = _rows(pixbuf)
    i = y * stride + x * n
    return data[i], data[i + 1], data[i + 2]


def luminance(colour):
    """WCAG 2 relative luminance (0..1) of an sRGB colour."""
    def linear(c):
        c /= 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b):
    """WCAG 2 contrast ratio of two colours, 1 (none) to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def diff_points(a, b, region=None):
    """The pixels (x, y) where a and b differ, inside region (x0, y0, x1, y1)."""
    da, stride, n, width = _rows(a)
    db = b.get_pixels()
    x0, y0, x1, y1 = region or (0, 0, width - 1, a.get_height() - 1)
    points = []
    for y in range(y0, y1 + 1):
        start, end = y * stride + x0 * n, y * stride + (x1 + 1) * n
        if da[start:end] == db[start:end]:
            continue
        for x in range(x0, x1 + 1):
            i = y * stride + x * n
            if (abs(da[i] - db[i]) + abs(da[i + 1] - db[i + 1])
                    + abs(da[i + 2] - db[i + 2])) > DIFF_THRESHOLD:
                points.append((x, y))
    return points


def box_of(points):
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return (min(xs), min(ys), max(xs), max(ys))


def components(points, gap=6):
    """Groups of changed pixels, joined when closer than gap pixels: one
    group per thing that changed (an icon, a clock digit, a menu)."""
    cell = {}
    for x, y in points:
        cell.setdefault((x // gap, y // gap), []).append((x, y))
    seen, groups = set(), []
    for start in cell:
        if start in seen:
            continue
        seen.add(start)
        stack, members = [start], []
        while stack:
            cx, cy = stack.pop()
            members.extend(cell[(cx, cy)])
            for nx in (cx - 1, cx, cx + 1):
                for ny in (cy - 1, cy, cy + 1):
                    if (nx, ny) in cell and (nx, ny) not in seen:
                        seen.add((nx, ny))
                        stack.append((nx, ny))
        groups.append(box_of(members))
    return groups


def uniform(pixbuf):
    """One colour all over: a screen nothing has drawn on yet."""
    data, stride, n, width = _rows(pixbuf)
    first = data[0:n] * width
    return all(data[y * stride:y * stride + width * n] == first
               for y in range(pixbuf.get_height()))


def size(box):
    return box[2] - box[0] + 1, box[3] - box[1] + 1


def grow(box, pad, pixbuf):
    return (max(0, box[0] - pad), max(0, box[1] - pad),
            min(pixbuf.get_width() - 1, box[2] + pad),
            min(pixbuf.get_height() - 1, box[3] + pad))


def crop(pixbuf, box):
    w, h = size(box)
    return pixbuf.new_subpixbuf(box[0], box[1], w, h).copy()


def background(pixbuf, box):
    """The panel's colour around box: the commonest colour on its rim."""
    x0, y0, x1, y1 = box
    counts = {}
    rim = ([(x, y0) for x in range(x0, x1 + 1)] + [(x, y1) for x in range(x0, x1 + 1)]
           + [(x0, y) for y in range(y0, y1 + 1)] + [(x1, y) for y in range(y0, y1 + 1)])
    for x, y in rim:
        c = rgb(pixbuf, x, y)
        counts[c] = counts.get(c, 0) + 1
    return max(counts, key=counts.get)


def contrast(pixbuf, box, bg, minimum):
    """(strong, top): how many pixels in box reach a contrast ratio of
    minimum against the colour bg, and the highest ratio there."""
    strong, top = 0, 1.0
    cache = {}
    for y in range(box[1], box[3] + 1):
        for x in range(box[0], box[2] + 1):
            c = rgb(pixbuf, x, y)
            if c not in cache:
                cache[c] = contrast_ratio(c, bg)
            top = max(top, cache[c])
            if cache[c] >= minimum:
                strong += 1
    return strong, top


# Legible: a shape of at least MIN_STRONG pixels with WCAG 2's contrast
# ratio for graphics (3:1, success criterion 1.4.11) against the panel.
MIN_RATIO = 3.0
MIN_STRONG = 12
# A passive item (no radios) that a panel dims on purpose (waybar's style
# does) must still be there to see: 1.5:1.
MIN_RATIO_DIMMED = 1.5


def likeness(a, b, shift=4):
    """Share (0..1) of equal pixels where two crops overlap best, moved by
    up to shift pixels against each other: the same icon found in two
    slightly different boxes is still the same."""
    best = 0.0
    for dy in range(-shift, shift + 1):
        for dx in range(-shift, shift + 1):
            ax, ay = max(0, dx), max(0, dy)
            bx, by = max(0, -dx), max(0, -dy)
            w = min(a.get_width() - ax, b.get_width() - bx)
            h = min(a.get_height() - ay, b.get_height() - by)
            if w < 8 or h < 8:
                continue
            ca = a.new_subpixbuf(ax, ay, w, h).copy()
            cb = b.new_subpixbuf(bx, by, w, h).copy()
            best = max(best, 1.0 - len(diff_points(ca, cb)) / float(w * h))
    return best


def save(pixbuf, path, factor=1):
    if factor != 1:
        pixbuf = pixbuf.scale_simple(pixbuf.get_width() * factor,
                                     pixbuf.get_height() * factor,
                                     GdkPixbuf.InterpType.NEAREST)
    pixbuf.savev(path, 'png', [], [])


