"""The test's X display as a user meets it: screenshots compared pixel by
pixel, and the mouse and keyboard through xdotool.

Shared by the panel tests (xfce4-panel, grabs by ImageMagick's `import`)
and the GNOME Shell tests (grabs by the shell): both take pixbufs of the
same size and ask where they differ, whether a grab has settled, and
whether an area is still blank.
"""
import os
import subprocess

import gi
gi.require_version('GdkPixbuf', '2.0')
from gi.repository import GdkPixbuf  # noqa: E402

from guitest import log, wait_for  # noqa: E402


def screenshot_dir(sub=None):
    """$RFK_SCREENSHOT_DIR (or its folder sub), made, without the PNGs of
    an earlier run: what is there after the test is this run's."""
    path = os.environ['RFK_SCREENSHOT_DIR']
    if sub:
        path = os.path.join(path, sub)
    os.makedirs(path, exist_ok=True)
    for old in os.listdir(path):
        if old.endswith('.png'):
            os.unlink(os.path.join(path, old))
    return path


def diff_box(a, b, threshold=40, step=1):
    """Bounding box (x0, y0, x1, y1) of the pixels that differ, or None.

    A pixel differs when its R, G and B differences add up to more than
    threshold; step > 1 looks at every step-th row and column only."""
    da, db = a.get_pixels(), b.get_pixels()
    n, stride = a.get_n_channels(), a.get_rowstride()
    box = None
    for y in range(0, a.get_height(), step):
        row = y * stride
        for x in range(0, a.get_width(), step):
            i = row + x * n
            if (abs(da[i] - db[i]) + abs(da[i + 1] - db[i + 1])
                    + abs(da[i + 2] - db[i + 2])) > threshold:
                if box is None:
                    box = [x, y, x, y]
                else:
                    box = [min(box[0], x), min(box[1], y),
                           max(box[2], x), max(box[3], y)]
    return box


def same(a, b, step=1):
    return diff_box(a, b, step=step) is None


def uniform(pixbuf):
    """One colour all over (sampled every 4th column, every 2nd row)."""
    data = pixbuf.get_pixels()
    n, stride = pixbuf.get_n_channels(), pixbuf.get_rowstride()
    first = data[0:3]
    return all(data[y * stride + x * n: y * stride + x * n + 3] == first
               for y in range(0, pixbuf.get_height(), 2)
               for x in range(0, pixbuf.get_width(), 4))


def stable(grab, what, timeout=10, differs_from=(), step=1):
    """Grabs until two grabs in a row agree and differ from the given ones."""
    last = grab()

    def settled():
        nonlocal last
        now = grab()
        done = (same(now, last, step=step)
                and not any(same(now, o, step=step) for o in differs_from))
        last = now
        return now if done else None
    return wait_for(settled, timeout, what)


def save_scaled(pixbuf, path, factor=4):
    """A small grab (an icon) enlarged, for a person to look at."""
    pixbuf.scale_simple(pixbuf.get_width() * factor, pixbuf.get_height() * factor,
                        GdkPixbuf.InterpType.NEAREST).savev(path, 'png', [], [])
    log('saved', path)


def xdotool(*args):
    subprocess.run(['xdotool'] + [str(a) for a in args], check=True)
