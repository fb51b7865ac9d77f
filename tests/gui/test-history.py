"""The history of radio changes (README, "History"): who changed what,
told through every place a user looks, with the cause each door and each
outside event gets.

The real applet on the fake kernel (Wi-Fi phy0, Bluetooth hci0), each
change made through the door a user or another program uses:
  0. a corrupt history.ini: `--history` says so and fails, leaving it
     where it is; the applet moves it aside and starts empty;
  1. the menu: Bluetooth off                         -> "menu"
  2. `rfkill-applet --airplane on`, then `off`       -> "cli"
  3. `gdbus call ... SetRadioBlocked` (Bluetooth on)  -> "dbus", by "gdbus"
  4. the middle click, twice                         -> "middle-click"
  5. a hardware switch on Wi-Fi, on and off          -> "switch"
  6. the airplane key (rfkill-input), twice          -> "key"
  7. a radio plugged in and soft-blocked at once by another program
                                                     -> "hotplug"
  8. the same radio changed later by another program -> "other"
Then the places that show it agree: the D-Bus History, the menu's
"Recent changes" (the last five, newest first), `--history --json` and
`--history` (from the file, 0600), and the history survives a restart.
"""
import json
import os
import stat
import subprocess
import time

import guitest as gt
import rfkapi
from guitest import check, log, wait_for
from gi.repository import GLib

BT = 'Bluetooth (hci0)'


def soft(fake):
    return {r['name']: r['soft'] for r in fake.state()}


def history(api):
    return list(api.get('History'))


def seen(entry):
    return (entry['name'], entry['from'], entry['to'], entry['cause'], entry['by'])


def expect(api, start, wanted, what):
    """The entries after the first start ones are wanted (in order)."""
    def got():
        return [seen(e) for e in history(api)[start:]]
    try:
        wait_for(lambda: got() == wanted, 5, what)
    except gt.TestFailure:
        raise gt.TestFailure(f'{what}: wanted {wanted}, got {got()}')
    return start + len(wanted)


def cli(s, *args, check_ok=True):
    r = subprocess.run([gt.program('RFK_APPLET'), '--device', s.fake.socket] + list(args),
                       capture_output=True, text=True, timeout=30)
    if check_ok:
        check(r.returncode == 0, f'rfkill-applet {" ".join(args)}: {r.returncode} {r.stderr}')
    return r


def state_dir():
    return os.path.join(os.environ['XDG_STATE_HOME'], 'rfkill-applet')


def start(s):
    return rfkapi.start_applet(s, BT)


def recent_lines(item):
    submenu = item.find('Recent changes')
    return [e.label for e in submenu.children if e.visible]


def test(logdir):
    with gt.Session(logdir, ['wlan', 'bluetooth'], watcher=True,
                    notifications=True) as s:
        fake = s.fake
        path = os.path.join(state_dir(), 'history.ini')

        # 0.
        os.makedirs(state_dir(), exist_ok=True)
        with open(path, 'w') as f:
            f.write('[change 1\ntime=garbage\n')
        r = cli(s, '--history', check_ok=False)
        check(r.returncode == 1 and 'is corrupt' in r.stderr,
              f'--history on a corrupt file: {r.returncode} {r.stderr!r}')
        check(os.path.exists(path), '--history left the corrupt file where it was')
        applet, item, api = start(s)
        check(history(api) == [], f'an empty history: {history(api)}')
        kept = [n for n in os.listdir(state_dir()) if n.startswith('history.ini.corrupt-')]
        check(len(kept) == 1, f'the corrupt file kept aside: {os.listdir(state_dir())}')
        wait_for(lambda: 'is corrupt' in applet.output(), 5, 'the applet says it was corrupt')
        n = 0

        # 1.
        item.click(BT)
        n = expect(api, n, [('hci0', 'on', 'off', 'menu', '')], 'the menu')

        # 2.
        cli(s, '--airplane', 'on')
        n = expect(api, n, [('phy0', 'on', 'off', 'cli', '')], '--airplane on')
        cli(s, '--airplane', 'off')
        n = expect(api, n, [('phy0', 'off', 'on', 'cli', '')], '--airplane off')

        # 3.
        hci0 = fake.radio('hci0')['idx']
        subprocess.run(['gdbus', 'call', '--session', '--dest', rfkapi.APP_ID,
                        '--object-path', rfkapi.PATH, '--method',
                        rfkapi.IFACE + '.SetRadioBlocked', str(hci0), 'false'],
                       check=True, capture_output=True, timeout=30)
        n = expect(api, n, [('hci0', 'off', 'on', 'dbus', 'gdbus')], 'gdbus')

        # 4.
        item.secondary_activate()
        n = expect(api, n, [('phy0', 'on', 'off', 'middle-click', ''),
                            ('hci0', 'on', 'off', 'middle-click', '')],
                   'the middle click: airplane mode on')
        item.secondary_activate()
        n = expect(api, n, [('phy0', 'off', 'on', 'middle-click', ''),
                            ('hci0', 'off', 'on', 'middle-click', '')],
                   'the middle click: airplane mode off')

        # 5.
        fake.set_hard('phy0', True)
        n = expect(api, n, [('phy0', 'on', 'hard-blocked', 'switch', '')], 'the switch on')
        fake.set_hard('phy0', False)
        n = expect(api, n, [('phy0', 'hard-blocked', 'on', 'switch', '')], 'the switch off')

        # 6.
        fake.command('key')
        n = expect(api, n, [('phy0', 'on', 'off', 'key', ''),
                            ('hci0', 'on', 'off', 'key', '')], 'the key')
        wait_for(lambda: item.find('Airplane mode').checked, 5, 'airplane mode by the key')
        fake.command('key')
        n = expect(api, n, [('phy0', 'off', 'on', 'key', ''),
                            ('hci0', 'off', 'on', 'key', '')], 'the key again')

        # 7.
        phy1 = fake.add('wlan', 'phy1')
        fake.command(f'soft {phy1} on')
        n = expect(api, n, [('phy1', 'on', 'off', 'hotplug', '')], 'a restore at hot-plug')

        # 8.
        time.sleep(3.5)  # past the hot-plug window (HOTPLUG_MS)
        fake.command(f'soft {phy1} off')
        n = expect(api, n, [('phy1', 'off', 'on', 'other', '')], 'another program')

        entries = history(api)
        check(len(entries) == n == 16, f'{n} changes: {[seen(e) for e in entries]}')

        # The menu: the last five, newest first, with the summaries.
        lines = recent_lines(item)
        summaries = [e['summary'] for e in reversed(entries[-5:])]
        check(len(lines) == 5 and all(l.endswith(w) for l, w in zip(lines, summaries)),
              f'Recent changes: {lines} for {summaries}')
        check(lines[0].endswith('Wi-Fi (phy1): off → on, by another program'), lines[0])

        # The file and the CLI (the applet writes half a second later).
        def from_cli():
            out = json.loads(cli(s, '--history', '--json').stdout)['history']
            return [(e['device'], e['from'], e['to'], e['cause'], e['by'] or '')
                    for e in out]
        wait_for(lambda: from_cli() == [seen(e) for e in entries], 5,
                 f'--history --json as History: {from_cli()}')
        mode = stat.S_IMODE(os.stat(path).st_mode)
        check(mode == 0o600, f'{path} is {oct(mode)}')
        text = cli(s, '--history').stdout.splitlines()
        check(len(text) == 16 and text[1].endswith('Wi-Fi (phy0): on → off, by the command line')
              and text[3].endswith('Bluetooth (hci0): off → on, by gdbus over D-Bus'),
              f'--history: {text}')

        # A restart keeps it.
        applet.stop()
        applet, item, api = start(s)
        check([seen(e) for e in history(api)] == [seen(e) for e in entries],
              'the history after a restart')
        log(f'{n} changes told, each with its cause')


if __name__ == '__main__':
    gt.run(test)
