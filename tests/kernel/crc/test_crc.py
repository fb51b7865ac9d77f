#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare the modversion CRCs of our rfkill.ko with the kernel's.

Debian's cfg80211, mac80211, bluetooth, thinkpad_acpi and ~190 other
modules import the 15 symbols of net/rfkill/rfkill with the CRCs recorded
in the headers' Module.symvers; a single difference and they refuse to
load ("disagrees about version of symbol").  This test builds kernel/ (in
a private copy: kbuild writes next to the sources) against one kernel's
headers and checks, symbol by symbol, that

  * the headers' Module.symvers (what Debian's modules expect),
  * our build's Module.symvers (what modpost computed), and
  * the __kcrctab section of the built rfkill.ko (what the module loader
    actually compares)

agree, with the same export kind (EXPORT_SYMBOL / _GPL), and that there
are no missing or extra exports.  With --kver it also runs
kernel/check-symvers (DKMS's pre-install check) on the build, against the
real headers and against a Module.symvers with one export altered, and
checks that `make clean` works.  KVER is an installed kernel or one in a
kernel root ($RFKILL_KERNEL_ROOTS, tests/vm/kernels.py: trixie's), where
the build runs chrooted, with that system's compiler.

  test_crc.py --kver 6.1.0-57-amd64 [--src kernel/] [--keep DIR]
  test_crc.py --ko rfkill.ko --our-symvers Module.symvers --ref-symvers REF
"""

import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from vm import kernels

REF_MODULE = "net/rfkill/rfkill"
# A version no source file contains: MODULE_VERSION must come from the build.
BUILD_VERSION = "0.0.0-from-the-build"


def fail(msg):
    print(f"test_crc: {msg}", file=sys.stderr)
    sys.exit(1)


def read_symvers(path, want):
    """{symbol: (crc, export kind)} for the lines whose module matches."""
    syms = {}
    try:
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                fields = line.rstrip("\n").split("\t")
                if len(fields) < 4:
                    fail(f"{path}:{lineno}: not a Module.symvers line")
                crc, sym, module, kind = fields[:4]
                if want(module):
                    syms[sym] = (int(crc, 16), kind)
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    return syms


def ko_crcs(ko):
    """{symbol: crc} from the __crc_* symbols in the .ko's __kcrctab*."""
    r = subprocess.run(["objdump", "-t", ko], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"objdump -t {ko}: {r.stderr.strip()}")
    # "0000000000000004 g     O __kcrctab_gpl\t0000000000000004 __crc_x"
    where = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) < 5 or not parts[-1].startswith("__crc_"):
            continue
        where[parts[-1][len("__crc_"):]] = (parts[-3], int(parts[0], 16))
    if not where:
        fail(f"{ko}: no __crc_* symbols (built without CONFIG_MODVERSIONS?)")

    sections = {}
    with tempfile.TemporaryDirectory(prefix="test-crc-") as tmp:
        for sec in sorted({sec for sec, _ in where.values()}):
            blob = os.path.join(tmp, "section.bin")
            r = subprocess.run(["objcopy", "-O", "binary",
                                f"--only-section={sec}", ko, blob],
                               capture_output=True, text=True)
            if r.returncode != 0:
                fail(f"objcopy {ko} {sec}: {r.stderr.strip()}")
            with open(blob, "rb") as f:
                sections[sec] = f.read()

    crcs = {}
    for sym, (sec, off) in where.items():
        data = sections[sec]
        if off + 4 > len(data):
            fail(f"{ko}: __crc_{sym} at {sec}+0x{off:x} is outside {sec}")
        crcs[sym] = struct.unpack_from("<I", data, off)[0]
    return crcs


def find_kernel(kver):
    try:
        return kernels.find(kver)
    except LookupError as e:
        fail(str(e))
    return None


def make(kernel, args, workdir):
    """make -C HEADERS args, where the kernel's modules are built (on the
    host or chrooted); returns (returncode, output, argv)."""
    log = os.path.join(workdir, "make.log")
    with open(log, "w", encoding="utf-8") as f:
        rc, cmd = kernel.make(args, [workdir], f)
    with open(log, encoding="utf-8", errors="replace") as f:
        return rc, f.read(), cmd


def build(src, kernel, workdir):
    headers = kernel.headers
    out = os.path.join(workdir, "kernel")
    shutil.copytree(src, out, ignore=shutil.ignore_patterns(
        "*.o", "*.ko", "*.mod*", ".*.cmd", "Module.symvers", "modules.order"))
    rc, text, cmd = make(kernel, ["-j2", f"M={out}", "modules",
                                  f"RFKILL_AIRPLANE_VERSION={BUILD_VERSION}"],
                         workdir)
    print("+", " ".join(cmd), flush=True)
    if rc != 0:
        print(text)
        fail(f"build against {headers} failed (exit {rc})")
    # warnings are part of the result: show them
    for line in text.splitlines():
        if "warning" in line.lower() and "BTF" not in line:
            print(line)
    return (os.path.join(out, "rfkill", "rfkill.ko"),
            os.path.join(out, "Module.symvers"),
            os.path.join(headers, "Module.symvers"))


def compare(ko, our_symvers, ref_symvers, label):
    ref = read_symvers(ref_symvers, lambda m: m == REF_MODULE)
    if not ref:
        fail(f"{ref_symvers}: no symbols of {REF_MODULE}")
    ours = read_symvers(our_symvers,
                        lambda m: m == "rfkill/rfkill"
                        or m.endswith("/rfkill/rfkill"))
    kcrc = ko_crcs(ko)

    good = bad = 0
    for sym in sorted(set(ref) | set(ours) | set(kcrc)):
        r, o, k = ref.get(sym), ours.get(sym), kcrc.get(sym)
        if r is None:
            print(f"EXTRA    {sym}: exported by us, not by {REF_MODULE}")
            bad += 1
        elif o is None or k is None:
            where = "Module.symvers" if o is None else "rfkill.ko"
            print(f"MISSING  {sym}: expected 0x{r[0]:08x}, not in our {where}")
            bad += 1
        elif r[0] != o[0] or r[0] != k:
            print(f"MISMATCH {sym}: kernel 0x{r[0]:08x}, our symvers "
                  f"0x{o[0]:08x}, our .ko 0x{k:08x}")
            bad += 1
        elif r[1] != o[1]:
            print(f"KIND     {sym}: kernel {r[1]}, ours {o[1]}")
            bad += 1
        else:
            print(f"ok       {sym}: 0x{r[0]:08x} {r[1]}")
            good += 1
    print(f"{label}: {good}/{len(ref)} exported CRCs match, "
          f"{bad} problem(s)")
    return bad == 0


def check_symvers_script(src, kernel, our_symvers, workdir):
    """kernel/check-symvers (what DKMS runs before installing) accepts this
    build against the real headers, and refuses a Module.symvers that
    differs in one rfkill export: a CRC where the kernel has modversions,
    the symbol itself where it has not."""
    headers = kernel.headers
    script = os.path.join(src, "check-symvers")
    ok = True

    def run_script(kdir):
        r = subprocess.run(["sh", script, kdir, our_symvers],
                           capture_output=True, text=True)
        for line in (r.stdout + r.stderr).splitlines():
            print("  | " + line)
        return r.returncode, r.stdout + r.stderr

    rc, _ = run_script(headers)
    print(f"{'ok' if rc == 0 else 'FAIL':8} check-symvers accepts the real "
          f"{headers}/Module.symvers (rc={rc})")
    ok &= rc == 0

    fake = os.path.join(workdir, "altered-headers")
    os.makedirs(os.path.join(fake, "include", "config"))
    conf = os.path.join(headers, "include", "config", "auto.conf")
    shutil.copyfile(conf, os.path.join(fake, "include", "config", "auto.conf"))
    with open(os.path.join(headers, "Module.symvers"), encoding="utf-8") as f:
        lines = f.readlines()
    out, how = [], None
    for line in lines:
        fields = line.split("\t")
        if how is None and fields[1:3] == ["rfkill_alloc", REF_MODULE]:
            if int(fields[0], 16):
                fields[0] = f"0x{int(fields[0], 16) ^ 1:08x}"
                how = "CRC"
                line = "\t".join(fields)
            else:
                how = "missing"
                continue    # no modversions: take the export away
        out.append(line)
    with open(os.path.join(fake, "Module.symvers"), "w", encoding="utf-8") as f:
        f.writelines(out)
    rc, text = run_script(fake)
    named = f"check-symvers: rfkill_alloc: " in text
    print(f"{'ok' if rc == 1 and named else 'FAIL':8} check-symvers refuses a "
          f"Module.symvers with rfkill_alloc altered ({how}) and names it (rc={rc})")
    ok &= rc == 1 and named
    return ok


def check_clean(kernel, out, workdir):
    """make clean (what DKMS's CLEAN runs) works: kbuild does not read the
    kernel configuration for it, and our Kbuild must not insist on one."""
    rc, text, cmd = make(kernel, [f"M={out}", "clean"], workdir)
    print("+", " ".join(cmd), flush=True)
    gone = not os.path.exists(os.path.join(out, "rfkill", "rfkill.ko"))
    ok = rc == 0 and gone
    if not ok:
        print(text)
    print(f"{'ok' if ok else 'FAIL':8} make clean exits 0 and removes rfkill.ko "
          f"(rc={rc})")
    return ok


def check_versions(ko):
    """Both modules carry the version the build was given."""
    ok = True
    asus = os.path.join(os.path.dirname(os.path.dirname(ko)), "asus-wireless",
                        "asus-wireless.ko")
    for mod in [ko] + ([asus] if os.path.exists(asus) else []):
        r = subprocess.run(["modinfo", "-F", "version", mod],
                           capture_output=True, text=True)
        got = r.stdout.strip()
        good = got == BUILD_VERSION
        print(f"{'ok' if good else 'FAIL':8} {os.path.basename(mod)}: "
              f"MODULE_VERSION {got!r} is the build's {BUILD_VERSION!r}")
        ok &= good
    return ok


def build_and_check(src, kver, workdir):
    kernel = find_kernel(kver)
    ko, ours, ref = build(src, kernel, workdir)
    ok = compare(ko, ours, ref, kver)
    ok &= check_versions(ko)
    ok &= check_symvers_script(src, kernel, ours, workdir)
    ok &= check_clean(kernel, os.path.dirname(os.path.dirname(ko)), workdir)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kver", help="build against KVER's headers (installed, "
                    "or in a kernel root)")
    ap.add_argument("--src", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
        "kernel"), help="the kernel/ source dir (default: ours)")
    ap.add_argument("--keep", metavar="DIR",
                    help="build in DIR (must not exist) and keep it")
    ap.add_argument("--ko", help="check this rfkill.ko instead of building")
    ap.add_argument("--our-symvers", help="Module.symvers next to --ko")
    ap.add_argument("--ref-symvers", help="the kernel's Module.symvers")
    a = ap.parse_args()

    if a.ko:
        if not (a.our_symvers and a.ref_symvers):
            ap.error("--ko needs --our-symvers and --ref-symvers")
        ok = compare(a.ko, a.our_symvers, a.ref_symvers, a.ko)
    elif a.kver:
        src = os.path.abspath(a.src)
        if not os.path.isfile(os.path.join(src, "Kbuild")):
            fail(f"{src}/Kbuild: not found (use --src)")
        if a.keep:
            os.makedirs(a.keep)
            ok = build_and_check(src, a.kver, a.keep)
        else:
            with tempfile.TemporaryDirectory(prefix="test-crc-") as tmp:
                ok = build_and_check(src, a.kver, tmp)
    else:
        ap.error("give --kver or --ko")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
