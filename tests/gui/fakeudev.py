"""A fake /sys and udev database for the applet: umockdev's testbed.

The device trees in udev/*.umockdev are real laptops' layouts in the
format `umockdev-record` writes ('#' lines are our comments, stripped
before loading).  The applet sees them through umockdev's preload
library, which redirects /sys and udev's netlink socket into the
testbed; nothing else in the session is affected.
"""
import os
import sys

import gi
try:
    gi.require_version('UMockdev', '1.0')
except ValueError:
    raise SystemExit('FAIL: no UMockdev typelib: apt-get install gir1.2-umockdev-1.0 umockdev')
from gi.repository import UMockdev  # noqa: E402

import guitest as gt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PRELOAD = 'libumockdev-preload.so.0'


def preload_self():
    """Runs this test script again under the preload library.  Only then
    can it send uevents: umockdev's sender resolves the device's /sys
    path through the preload, like the receiving applet does.  Call it
    first thing, before anything is started."""
    if PRELOAD in os.environ.get('LD_PRELOAD', ''):
        return
    env = dict(os.environ)
    env['LD_PRELOAD'] = f'{PRELOAD} {env.get("LD_PRELOAD", "")}'.strip()
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


class Testbed:
    def __init__(self, fixture):
        gt.check(any(os.path.exists(os.path.join(d, PRELOAD))
                     for d in ('/usr/lib/x86_64-linux-gnu', '/usr/lib64', '/usr/lib')
                     + tuple(os.environ.get('LD_LIBRARY_PATH', '').split(':'))),
                 f'no {PRELOAD}: apt-get install umockdev')
        self.testbed = UMockdev.Testbed.new()
        path = os.path.join(HERE, 'udev', fixture + '.umockdev')
        with open(path) as f:
            text = ''.join(line for line in f if not line.startswith('#')).strip()
        gt.check(self.testbed.add_from_string(text + '\n'),
                 f'umockdev could not load {path}')

    def env(self):
        """What the applet needs to see the testbed instead of /sys.
        RFKILL_SYSFS_ROOT empty: names come from /sys/class/rfkill too."""
        preload = os.environ.get('LD_PRELOAD', '')
        if PRELOAD not in preload:
            preload = f'{PRELOAD} {preload}'.strip()
        return {'LD_PRELOAD': preload,
                'UMOCKDEV_DIR': self.testbed.get_root_dir(),
                'RFKILL_SYSFS_ROOT': ''}

    def add(self, text):
        """Adds devices (umockdev-record text); returns the first sysfs path."""
        return self.testbed.add_from_string(text)

    def uevent(self, devpath, action):
        self.testbed.uevent('/sys' + devpath, action)

    def remove(self, devpath):
        self.testbed.remove_device('/sys' + devpath)
