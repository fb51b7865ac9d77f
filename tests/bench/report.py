"""The bench's output: a table on stdout, bench-report.json, bench-chart.png.

Targets come from the issue that asked for the bench; each row says what
it compares with.  write() returns the names of the missed targets.
"""
import json
import os
import subprocess

LABELS = {'floor': 'floor', 'applet': 'rfkill-applet',
          'nm-applet': 'nm-applet', 'blueman': 'blueman'}
ANCHORS = ('nm-applet', 'blueman')
# On the session bus the applet asks for two names the floor does not
# (its application id, for one instance per session; its
# org.kde.StatusNotifierItem-PID-1) and makes no StartServiceByName:
# 2026-12-05, 8 against the floor's 7.
ROUND_TRIPS_OVER_FLOOR = 2
# A guard, not the goal: the goal is the startup time.  Which side of
# the registration a system-bus message sent at the same moment falls on
# is not certain (README.md), and one such message can bring the menu's
# dbusmenu export (~4 M) into the count.
INSTRUCTIONS_X_FLOOR = 1.10
# CHANGE -> dbusmenu update, pooled p99.
LATENCY_P99_TARGET_MS = 10


def _rows(r, out_dir):
    rows = []  # (figure, value, ratio, target, verdict)
    fp = r['footprint']
    floor = fp['floor']
    # bench-smoke judges each figure against k times its target (k = 2);
    # a target of 0 stays 0.
    k = r.get('target_scale', 1.0)

    def t(x):
        return f'{x * k:g}'

    def add(figure, value, ratio='', target='', ok=None):
        verdict = '' if ok is None else ('pass' if ok else 'FAIL')
        rows.append((figure, value, ratio, target, verdict))

    def per_program(title, field, fmt, target_text, check, ratio_kind):
        for key in ('floor', 'applet') + ANCHORS:
            if key in r['absent']:
                add(f'{title}: {LABELS[key]}', 'absent')
                continue
            if key not in fp:
                continue
            value = fp[key][field]
            if ratio_kind == 'x':
                ratio = f'{value / floor[field]:.2f}x' if floor[field] else 'n/a'
            else:
                ratio = f'{value - floor[field]:+{fmt}}'
            if key == 'applet':
                add(f'{title}: {LABELS[key]}', format(value, fmt), ratio,
                    target_text, check(value, floor[field]) if check else None)
            else:
                add(f'{title}: {LABELS[key]}', format(value, fmt), ratio,
                    'baseline' if key == 'floor' else 'anchor')

    # Startup: within 5 % of the floor, and no slower than nm-applet
    # measured in the same run (when it is installed).
    nm = fp.get('nm-applet', {}).get('startup_ms')
    startup_target = f'<= {t(1.05)} x floor' + (
        '' if not nm else ' and <= nm-applet' if k == 1 else f' and <= {t(1)} x nm-applet')
    per_program('startup ms', 'startup_ms', '.0f', startup_target,
                lambda v, f: v <= 1.05 * k * f and (nm is None or v <= k * nm), 'x')
    per_program('startup: session-bus round trips to registration', 'session_round_trips',
                '.0f', f"<= floor's + {t(ROUND_TRIPS_OVER_FLOOR)}",
                lambda v, f: v <= f + ROUND_TRIPS_OVER_FLOOR * k, '+')
    per_program('startup: system-bus round trips to registration', 'system_round_trips',
                '.0f', '', None, '+')
    add(f'startup: system-bus round trips, most in {r["runs"]} runs: {LABELS["applet"]}',
        f'{fp["applet"]["worst_system_round_trips"]:.0f}')
    _instruction_rows(r, add, k)
    if r.get('startup_only'):
        return rows
    for key in fp:
        fp[key]['rss_mib'] = fp[key]['rss_kib'] / 1024
        fp[key]['pss_mib'] = fp[key]['pss_kib'] / 1024
    per_program('RSS MiB at 10 s', 'rss_mib', '.1f', f'<= floor + {t(3)} MiB',
                lambda v, f: v <= f + 3 * k, '+')
    per_program('PSS MiB at 10 s', 'pss_mib', '.1f', '', None, '+')
    idle = f'{r["idle_s"]:.0f} s'
    per_program(f'idle ctx switches/{idle}', 'idle_switches', '.0f',
                "<= floor's" if k == 1 else f"<= {t(1)} x floor's",
                lambda v, f: v <= k * f, 'x')
    per_program(f'idle CPU ms/{idle}', 'idle_cpu_ms', '.1f', '', None, 'x')
    per_program(f'idle syscalls/{idle}', 'idle_syscalls', '.0f', '', None, 'x')
    per_program(f'idle timer wake-ups/{idle}', 'idle_timers', '.0f', '', None, '+')
    worst = fp['applet']['worst_idle_timers']
    add(f'idle timer wake-ups/{idle}, worst of {r["runs"]} runs: {LABELS["applet"]}',
        f'{worst:.0f}', '', '0 in every run', worst == 0)

    lat = r['latency']
    add(f'latency p50 ms ({lat["events"]} events of {len(lat["runs"])} runs pooled, '
        f'{lat["radios"]} radios)', f'{lat["p50_ms"]:.1f}')
    target = LATENCY_P99_TARGET_MS * k
    repeat = lat.get('repeat')
    if repeat is None:
        add('latency p99 ms, every event pooled', f'{lat["p99_ms"]:.1f}', '',
            f'< {t(LATENCY_P99_TARGET_MS)}', lat['p99_ms'] < target)
    else:
        add('latency p99 ms, every event pooled', f'{lat["p99_ms"]:.1f}', '',
            f'< {t(LATENCY_P99_TARGET_MS)}: missed, measured again below')
    add('latency p99 ms, each run', ' '.join(f'{x["p99_ms"]:.1f}' for x in lat['runs']))
    add('latency: slowest events of the first run (event: ms)', _slowest(lat['runs'][0]))
    if lat.get('steal_ms') is not None:
        add('latency: CPU steal during the runs, ms', f'{lat["steal_ms"]:.0f}')
    if repeat is not None:
        # Only the smoke repeats, and only after a miss (bench-applet.py).
        add(f'latency p99 ms, measured again after the miss ({repeat["events"]} events)',
            f'{repeat["p99_ms"]:.1f}', '', f'< {t(LATENCY_P99_TARGET_MS)}',
            repeat['p99_ms'] < target)
        add('latency: slowest events of the repeat (event: ms)', _slowest(repeat))
        if repeat.get('steal_ms') is not None:
            add('latency: CPU steal during the repeat, ms', f'{repeat["steal_ms"]:.0f}')
    st = r['storm']
    n = len(r['storm_runs'])
    add(f'storm: dbusmenu signals, worst of {n} runs ({r["storm_runs"][0]["events"]} '
        f'events, burst {st["burst_ms"]:.0f} ms)', f'{st["worst_dbusmenu_signals"]:.0f}', '',
        f'<= {t(5)} in every run', st['worst_dbusmenu_signals'] <= 5 * k)
    add(f'storm: SNI signals, worst of {n} runs', f'{st["worst_sni_signals"]:.0f}', '',
        f'<= {t(5)} in every run', st['worst_sni_signals'] <= 5 * k)
    add('storm: settled after the last event, ms', f'{st["settled_ms"]:.0f}', '',
        f'< {t(150)}', st['settled_ms'] < 150 * k)
    ch = r['churn']
    cycles = len(ch['runs']) * ch['cycles']
    add(f'churn: RSS growth KiB over all {cycles} cycles ({ch["radios"]} radios, '
        f'{len(ch["runs"])} runs)', f'{ch["total_growth_kib"]}', '', f'< {t(256)}',
        ch['total_growth_kib'] < 256 * k)
    add('churn: RSS growth KiB, each run', ' '.join(f'{x["growth_kib"]}' for x in ch['runs']))
    ap = r['airplane']
    add('airplane on, 64 radios, ms', f'{ap["on_ms"]:.1f}', '', f'< {t(50)}',
        ap['on_ms'] < 50 * k)
    add('airplane off, 64 radios, ms', f'{ap["off_ms"]:.1f}', '', f'< {t(50)}',
        ap['off_ms'] < 50 * k)
    co = r['core']
    add(f'core: instructions/event ({co["events"]} events)', f'{co["per_event"]:.0f}', '',
        f'<= {t(1500)}', co['per_event'] <= 1500 * k)
    _kernel_rows(r, add, out_dir, k)
    return rows


def _slowest(run, n=4):
    return ' '.join(f'{e["event"]}: {e["ms"]:.1f}' for e in run['slowest'][:n])


def _instruction_rows(r, add, k):
    """Instructions from exec to registration (callgrind), against the
    floor's: the startup figure that the machine's load cannot move."""
    ins = r.get('startup_instructions') or {}
    floor = ins.get('floor', {}).get('instructions')
    for key in ('floor', 'applet') + ANCHORS:
        if key not in ins:
            continue
        value = ins[key]['instructions']
        ratio = f'{value / floor:.3f}x' if floor else 'n/a'
        title = f'startup: M instructions to registration: {LABELS[key]}'
        if key == 'applet':
            add(title, f'{value / 1e6:.1f}', ratio, f'<= {t_fmt(INSTRUCTIONS_X_FLOOR, k)} x floor',
                floor is not None and value <= INSTRUCTIONS_X_FLOOR * k * floor)
        else:
            add(title, f'{value / 1e6:.1f}', ratio, 'baseline' if key == 'floor' else 'anchor')


def t_fmt(x, k):
    return f'{x * k:g}'


def _kernel_figures(out_dir):
    """(figures of bench-kernel.json, None) or (None, why there are none).
    The kernel-indicator test writes that file; it runs first in the
    bench suite, and only in a build with the kernel suite."""
    path = os.path.join(out_dir, 'bench-kernel.json')
    try:
        with open(path) as f:
            k = json.load(f)
    except FileNotFoundError:
        # The build's meson-info: out_dir is the build directory for the
        # bench, its bench-smoke/ for bench-smoke (and bench-startup/).
        tests = None
        for build in (out_dir, os.path.dirname(os.path.normpath(out_dir))):
            try:
                with open(os.path.join(build, 'meson-info', 'intro-tests.json')) as f:
                    tests = json.load(f)
                break
            except (OSError, ValueError):
                continue
        if tests is not None and not any(t['name'] == 'kernel-indicator' for t in tests):
            return None, 'no kernel suite in this build'
        return None, 'bench-kernel.json missing: kernel-indicator not run'
    except (OSError, ValueError) as error:
        return None, f'bench-kernel.json unreadable: {error}'
    if k.get('errors'):
        return k, 'kernel-indicator failed: ' + '; '.join(k['errors'])
    return k, None


def _kernel_rows(r, add, out_dir, scale):
    """The VM figures of kernel-indicator (tests/bench/kernel): the LED
    at the host's debugcon after a block-all and an unblock-all (judged
    on p99), and op-5 events under a 64-radio storm.  A run that failed
    or is missing is a FAIL row: the bench claims these figures."""
    k, why = _kernel_figures(out_dir)
    failed = False
    r['kernel'] = k
    led, storm = (k or {}).get('led'), (k or {}).get('storm')
    if led:
        where = f'VM {k["kernel"].split("+")[0]}, {k["radios"]} radios'
        for name in ('block', 'unblock'):
            s = led[name]
            add(f'LED: {name}-all -> debugcon write, median ms ({where}, n={s["n"]})',
                f'{s["median_ms"]:.1f}')
            add(f'LED: {name}-all -> debugcon write, p99 ms', f'{s["p99_ms"]:.1f}', '',
                f'< {led["target_ms"] * scale:g}', s['p99_ms'] < led['target_ms'] * scale)
    else:
        add('LED: block-all -> debugcon write (VM)', why if k else f'not measured ({why})',
            '', f'< {50 * scale:g}', failed)
    if storm:
        add(f'op-5 events/s, {storm["radios"]}-radio storm (VM, {storm["seconds"]:.0f} s)',
            f'{storm["op5_per_s"]:.0f}')
        add('storm (VM): all events/s, CHANGE writes/s',
            f'{storm["events_per_s"]:.0f}, {storm["changes_per_s"]:.0f}')
        add('storm (VM): last op-5 = final state', 'yes' if storm['last_op5_is_final'] else 'no',
            '', 'yes', storm['last_op5_is_final'])
    else:
        add('op-5 events/s, 64-radio storm (VM)', why if k else f'not measured ({why})',
            '', '', failed)
    if k and why and (led or storm):
        add('kernel-indicator run', why, '', 'clean', False)
    if k and (led or storm):
        r['kernel_note'] = (f'# kernel rows: bench-kernel.json of {k["when"]} '
                            f'({k["kernel"]}, TCG)')


def _chart(r, out_dir):
    fp = r['footprint']
    keys = [k for k in ('floor', 'applet') + ANCHORS if k in fp]
    data = os.path.join(out_dir, 'bench-chart.dat')
    png = os.path.join(out_dir, 'bench-chart.png')
    with open(data, 'w') as f:
        for k in keys:
            f.write(f'"{LABELS[k]}" {fp[k]["startup_ms"]:.1f} {fp[k]["rss_kib"] / 1024:.1f} '
                    f'{fp[k]["idle_switches"]:.0f} {fp[k]["idle_cpu_ms"]:.2f}\n')
    panels = [(2, 'startup (ms, exec to SNI registered)', '#4477aa'),
              (3, 'RSS at 10 s (MiB)', '#228833'),
              (4, f'idle context switches / {r["idle_s"]:.0f} s', '#cc6677'),
              (5, f'idle CPU time / {r["idle_s"]:.0f} s (ms)', '#aa7733')]
    script = [
        'set terminal pngcairo size 1400,420 font "DejaVu Sans,10"',
        f'set output "{png}"',
        f'set multiplot layout 1,{len(panels)} title '
        f'"rfkill-applet bench: median of {r["runs"]} runs, same session"',
        'set style fill solid 0.8 border -1', 'set boxwidth 0.6', 'set grid ytics',
        'set yrange [0:*]', 'unset key', 'set xtics rotate by -20',
    ]
    for col, title, color in panels:
        script += [f'set title "{title}"',
                   f'plot "{data}" using 0:{col}:xtic(1) with boxes lc rgb "{color}", '
                   f'"" using 0:{col}:(sprintf("%.0f", ${col})) with labels offset 0,0.7']
    script.append('unset multiplot')
    try:
        subprocess.run(['gnuplot'], input='\n'.join(script) + '\n', text=True, check=True)
    except (FileNotFoundError, subprocess.CalledProcessError) as error:
        print(f'# no chart: {error} (apt-get install gnuplot-nox)')
        return None
    return png


def write(results, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    rows = _rows(results, out_dir)
    header = ('figure', 'value', 'ratio/diff', 'target', 'result')
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(5)]
    line = '  '.join('-' * w for w in widths)
    print(line)
    print('  '.join(str(h).ljust(w) for h, w in zip(header, widths)))
    print(line)
    for row in rows:
        print('  '.join(str(c).ljust(w) for c, w in zip(row, widths)))
    print(line)
    if results.get('kernel_note'):
        print(results['kernel_note'])
    results['table'] = [dict(zip(header, row)) for row in rows]
    results['chart'] = None if results.get('startup_only') else _chart(results, out_dir)
    path = os.path.join(out_dir, 'bench-report.json')
    with open(path, 'w') as f:
        json.dump(results, f, indent=2, sort_keys=True)
    print(f'# report: {path}')
    if results['chart']:
        print(f'# chart: {results["chart"]}')
    return [row[0] for row in rows if row[4] == 'FAIL']
