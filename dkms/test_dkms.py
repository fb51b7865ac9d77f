#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""DKMS round trip of rfkill-airplane against every installed kernel.

Installs the source tree to /usr/src/rfkill-airplane-VERSION the way
`meson install -Ddkms=true` does (same install-tree script), then

  dkms add -m rfkill-airplane -v VERSION
  dkms build/install -m rfkill-airplane -v VERSION -k KVER   (each kernel)

first the kernels that must be refused, none of which may get anything
installed (rfkill stays the in-tree module):
  - a kernel release that is not on kernel/verified-kernels (DKMS's
    BUILD_EXCLUSIVE_KERNEL stops it before any build, and `dkms
    autoinstall`, which a kernel's installation runs, skips it and
    succeeds);
  - a headers copy whose Linux release differs from the one verified under
    that kernel's name (a rebuild under the same ABI name: check-kernel
    fails the build naming the kernel);
  - a headers copy with one rfkill CRC altered (check-symvers fails the
    build naming the symbol);
then, for a kernel on the list, the real headers: it checks that the
build checked the kernel and compared the exports, that the kernel hook
(what a newly installed kernel runs) installs it, that modinfo and modprobe now resolve rfkill (and asus-wireless)
to updates/dkms/ with our MODULE_VERSION, that cfg80211 would be loaded on
top of our rfkill, and finally that `dkms remove --all` gives the in-tree
modules back.  Needs root; it refuses to touch an rfkill-airplane that is
already installed on this machine, and removes the MOK signing key DKMS
generates during the build unless one existed before.

  test_dkms.py --install-tree PATH --kernel-src kernel/ --dkms-conf FILE
             --kernel-hook dkms/kernel-hook --version V [--kernel KVER ...]
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

PKG = "rfkill-airplane"
HOOK = None     # dkms/kernel-hook, from --kernel-hook
# dkms build creates a self-signed signing key if there is none
MOK_FILES = ("/var/lib/dkms/mok.key", "/var/lib/dkms/mok.pub")


class Check:
    def __init__(self):
        self.failed = 0

    def ok(self, cond, what):
        print(f"{'ok  ' if cond else 'FAIL'} {what}", flush=True)
        self.failed += not cond
        return cond


def run(cmd, check=None, quiet=False):
    """Run cmd, echo it and its output; returns (rc, stdout)."""
    print("+ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if not quiet or r.returncode != 0:
        for line in r.stdout.rstrip().splitlines():
            print("  | " + line)
    if check is not None:
        check.ok(r.returncode == 0, f"{' '.join(cmd[:2])} exits 0 "
                 f"(got {r.returncode})")
    return r.returncode, r.stdout.strip()


def installed_kernels():
    kvers = []
    for d in sorted(glob.glob("/usr/src/linux-headers-*-amd64")):
        kver = os.path.basename(d)[len("linux-headers-"):]
        if (os.path.isfile(os.path.join(d, "Module.symvers"))
                and os.path.isfile(f"/lib/modules/{kver}/modules.dep")):
            kvers.append(kver)
    return kvers


def headers_copy(kver, dest):
    """A private copy of /usr/src/linux-headers-KVER in dest, whose
    relative symlinks (scripts, tools, into -common) point where the
    originals do; returns its path."""
    src = f"/usr/src/linux-headers-{kver}"
    copy = os.path.join(dest, f"linux-headers-{kver}")
    shutil.copytree(src, copy, symlinks=True)
    for root, dirs, files in os.walk(copy):
        for name in dirs + files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                orig = os.path.join(src, os.path.relpath(path, copy))
                os.unlink(path)
                os.symlink(os.path.realpath(orig), path)
    return copy


def alter_crc(symvers, symbol):
    """Flips the low bit of symbol's CRC in the net/rfkill/rfkill line;
    returns (old, new) CRC text, or None if there is no such line or the
    kernel has no modversion CRCs (all 0)."""
    with open(symvers, encoding="utf-8") as f:
        lines = f.readlines()
    for i, line in enumerate(lines):
        fields = line.split("\t")
        if len(fields) > 3 and fields[1] == symbol and fields[2] == "net/rfkill/rfkill":
            old = fields[0]
            if int(old, 16) == 0:
                return None
            fields[0] = f"0x{int(old, 16) ^ 1:08x}"
            lines[i] = "\t".join(fields)
            with open(symvers, "w", encoding="utf-8") as f:
                f.writelines(lines)
            return old, fields[0]
    return None


def read_verified(kernel_src):
    """{kernel release: Linux release} of kernel/verified-kernels."""
    verified = {}
    with open(os.path.join(kernel_src, "verified-kernels"), encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 2 and not fields[0].startswith("#"):
                verified[fields[0]] = fields[1]
    return verified


def headers_config(kdir, name):
    """CONFIG_name of a headers tree's .config ('y', 'm', or None)."""
    try:
        with open(os.path.join(kdir, ".config"), encoding="utf-8") as f:
            for line in f:
                if line.startswith(f"CONFIG_{name}="):
                    return line.strip().split("=", 1)[1]
    except OSError:
        pass
    return None


def alter_sublevel(kdir):
    """Raises the SUBLEVEL of the headers' Linux release by one, as a
    later stable update built under the same kernel release would have;
    returns (old, new) release text."""
    path = os.path.join(kdir, "include/generated/uapi/linux/version.h")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    fields = dict(line.split()[1:3] for line in text.splitlines()
                  if line.startswith("#define LINUX_VERSION_"))
    old = (f"{fields['LINUX_VERSION_MAJOR']}.{fields['LINUX_VERSION_PATCHLEVEL']}."
           f"{fields['LINUX_VERSION_SUBLEVEL']}")
    sub = int(fields["LINUX_VERSION_SUBLEVEL"]) + 1
    text = text.replace(f"#define LINUX_VERSION_SUBLEVEL {sub - 1}\n",
                        f"#define LINUX_VERSION_SUBLEVEL {sub}\n")
    os.unlink(path)     # a symlink into -common would change the original
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return old, old.rsplit(".", 1)[0] + f".{sub}"


def check_nothing_installed(c, kver, version, what):
    _, path = run(["modinfo", "-k", kver, "-n", "rfkill"])
    c.ok("/kernel/net/rfkill/" in path and "/updates/" not in path,
         f"{kver}: after {what} rfkill is still the in-tree one ({path})")
    _, status = run(["dkms", "status", "-m", PKG, "-v", version, "-k", kver])
    c.ok("installed" not in status and "built" not in status,
         f"{kver}: dkms status says neither built nor installed after {what}")


def read_build_log(version):
    log = f"/var/lib/dkms/{PKG}/{version}/build/make.log"
    if not os.path.exists(log):
        return ""
    with open(log, encoding="utf-8", errors="replace") as f:
        return f.read()


def check_unlisted_kernel(c, kver, version):
    """A kernel release nobody verified (here: the name of a real kernel
    with an ABI that does not exist): DKMS must not even start a build."""
    fake = kver.replace("-amd64", "-unverified-amd64")
    rc, out = run(["dkms", "install", "-m", PKG, "-v", version, "-k", fake,
                   "--kernelsourcedir", f"/usr/src/linux-headers-{kver}"])
    c.ok(rc != 0, f"{fake}: dkms install of an unlisted kernel fails (rc={rc})")
    c.ok("BUILD_EXCLUSIVE" in out,
         f"{fake}: refused by dkms.conf's BUILD_EXCLUSIVE_KERNEL")
    c.ok(not os.path.exists(f"/lib/modules/{fake}"),
         f"{fake}: nothing written to /lib/modules/{fake}")
    _, status = run(["dkms", "status", "-m", PKG, "-v", version, "-k", fake])
    c.ok("built" not in status and "installed" not in status,
         f"{fake}: dkms status says neither built nor installed ({status!r})")
    # What a new kernel's installation runs (/etc/kernel/postinst.d/):
    # DKMS's autoinstall, then our hook; neither may fail it.  The hook
    # finds the headers at /lib/modules/KVER/build, made for it here.
    rc, _ = run(["dkms", "autoinstall", "-k", fake,
                 "--kernelsourcedir", f"/usr/src/linux-headers-{kver}"])
    c.ok(rc == 0, f"{fake}: dkms autoinstall skips it and exits 0 (rc={rc})")
    moddir = f"/lib/modules/{fake}"
    os.makedirs(moddir)
    try:
        os.symlink(f"/usr/src/linux-headers-{kver}", os.path.join(moddir, "build"))
        rc, out = run(["sh", HOOK, fake])
    finally:
        shutil.rmtree(moddir)
    c.ok(rc == 0 and f"not built for kernel {fake}: it is not one of" in out,
         f"{fake}: the kernel hook exits 0 and says why it is skipped (rc={rc})")
    _, status = run(["dkms", "status", "-m", PKG, "-v", version, "-k", fake])
    c.ok("built" not in status and "installed" not in status,
         f"{fake}: nothing built or installed by autoinstall or the hook ({status!r})")


def check_other_release(c, kver, version):
    """Headers of a listed kernel release that carry another Linux release
    (a stable update built under the same ABI name): check-kernel must
    stop the build, naming the kernel and what to do."""
    with tempfile.TemporaryDirectory(prefix="dkms-other-release-") as tmp:
        kdir = headers_copy(kver, tmp)
        old, new = alter_sublevel(kdir)
        print(f"  {kver}: Linux {old} -> {new} in {kdir}")
        rc, _ = run(["dkms", "install", "-m", PKG, "-v", version, "-k", kver,
                     "--kernelsourcedir", kdir])
        c.ok(rc != 0, f"{kver}: dkms install against Linux {new} headers fails (rc={rc})")
        text = read_build_log(version)
        for line in text.splitlines():
            if line.startswith("rfkill-airplane:"):
                print("  | make.log: " + line)
        c.ok(f"rfkill-airplane: not built for kernel {kver}: its headers" in text
             and f"Linux {new}" in text and "kernel/README.md" in text,
             f"{kver}: the build log names the kernel, the release and what to do")
        # (make.log stays in build/ only when the build failed)
        c.ok(text != "" and "check-symvers" not in text and "CC [M]" not in text,
             f"{kver}: the build stopped before compiling anything")
    check_nothing_installed(c, kver, version, "the other-release refusal")


def check_refused(c, kver, version):
    """A headers tree whose Module.symvers disagrees with our rfkill.ko
    about one CRC: the DKMS build must fail naming the symbol, and nothing
    may be installed."""
    with tempfile.TemporaryDirectory(prefix="dkms-bad-headers-") as tmp:
        kdir = headers_copy(kver, tmp)
        altered = alter_crc(os.path.join(kdir, "Module.symvers"), "rfkill_alloc")
        if altered is None:
            # Only a kernel without CONFIG_MODVERSIONS may lack CRCs; on
            # one with it, a missing CRC means the check never ran.
            modversions = headers_config(kdir, "MODVERSIONS") == "y"
            if not c.ok(not modversions,
                        f"{kver}: rfkill_alloc has a CRC to alter "
                        f"(CONFIG_MODVERSIONS={'y' if modversions else 'n'})"):
                return
            print(f"skip {kver}: CONFIG_MODVERSIONS is off, no CRC to alter; "
                  "the altered-CRC case does not apply", flush=True)
            return
        print(f"  {kver}: rfkill_alloc CRC {altered[0]} -> {altered[1]} in {kdir}")
        # install builds first; one refused build is all this costs
        rc, _ = run(["dkms", "install", "-m", PKG, "-v", version, "-k", kver,
                     "--kernelsourcedir", kdir])
        c.ok(rc != 0, f"{kver}: dkms install against the altered headers fails (rc={rc})")
        text = read_build_log(version)
        for line in text.splitlines():
            if line.startswith("check-symvers:"):
                print("  | make.log: " + line)
        c.ok("check-symvers: rfkill_alloc: CRC" in text,
             f"{kver}: the build log names the symbol (rfkill_alloc)")
    check_nothing_installed(c, kver, version, "the altered-CRC refusal")


def check_unlisted(c, kver, version):
    """A real kernel that is not on the list: refused, nothing installed."""
    rc, out = run(["dkms", "install", "-m", PKG, "-v", version, "-k", kver])
    c.ok(rc != 0 and "BUILD_EXCLUSIVE" in out,
         f"{kver}: dkms install refuses it (rc={rc}, BUILD_EXCLUSIVE_KERNEL)")
    check_nothing_installed(c, kver, version, "the refusal")


def check_kernel(c, kver, version, want_asus):
    run(["dkms", "build", "-m", PKG, "-v", version, "-k", kver], check=c)
    log = glob.glob(f"/var/lib/dkms/{PKG}/{version}/{kver}/*/log/make.log")
    text = open(log[0], encoding="utf-8", errors="replace").read() if log else ""
    for line in text.splitlines():
        if line.startswith("check-symvers:"):
            print("  | make.log: " + line)
    c.ok(f"check-kernel: {kver} (Linux " in text and "is a verified kernel" in text,
         f"{kver}: the build checked that the kernel is verified")
    c.ok("check-symvers: the 15 exports match" in text,
         f"{kver}: the build checked our exports against the real Module.symvers")
    # installed the way a newly installed kernel gets it: the kernel hook
    rc, _ = run(["sh", HOOK, kver])
    c.ok(rc == 0, f"{kver}: the kernel hook exits 0 (rc={rc})")
    _, status = run(["dkms", "status", "-m", PKG, "-v", version, "-k", kver])
    c.ok(": installed" in status, f"{kver}: the kernel hook installed it ({status!r})")

    mods = ["rfkill"] + (["asus-wireless"] if want_asus else [])
    for mod in mods:
        _, path = run(["modinfo", "-k", kver, "-n", mod])
        c.ok("/updates/dkms/" in path,
             f"{kver}: modinfo -n {mod} is in updates/dkms ({path})")
        _, ver = run(["modinfo", "-k", kver, "-F", "version", mod])
        c.ok(ver == version, f"{kver}: {mod} version is {version} ({ver!r})")

    # what modprobe would really load under Debian's cfg80211
    _, deps = run(["modprobe", "-S", kver, "--show-depends", "cfg80211"])
    rf = [l for l in deps.splitlines() if "/rfkill.ko" in l]
    c.ok(len(rf) == 1 and "/updates/dkms/" in rf[0],
         f"{kver}: modprobe cfg80211 pulls in our rfkill "
         f"({rf[0].split()[-1] if rf else 'no rfkill line'})")


def timed(step, *args):
    start = time.monotonic()
    step(*args)
    print(f"  {args[1]}: {step.__name__} took {time.monotonic() - start:.1f} s",
          flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--install-tree", required=True)
    ap.add_argument("--kernel-src", required=True)
    ap.add_argument("--dkms-conf", required=True)
    ap.add_argument("--kernel-hook", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--kernel", action="append",
                    help="kernel version (default: all with headers+modules)")
    a = ap.parse_args()
    global HOOK
    HOOK = os.path.abspath(a.kernel_hook)

    if os.geteuid() != 0:
        print("test_dkms: needs root (dkms install writes /lib/modules); "
              "CI runs the kernel suite as root")
        sys.exit(77)

    src_dir = f"/usr/src/{PKG}-{a.version}"
    _, status = run(["dkms", "status", "-m", PKG])
    if status or os.path.exists(src_dir):
        sys.exit(f"test_dkms: {PKG} is already on this machine "
                 f"({src_dir} or 'dkms status' above); not touching it")

    kvers = a.kernel or installed_kernels()
    if not kvers:
        sys.exit("test_dkms: no kernel with both headers and modules.dep")
    want_asus = os.path.isfile(os.path.join(a.kernel_src, "asus-wireless",
                                            "Kbuild"))

    c = Check()
    mok_existed = [os.path.exists(p) for p in MOK_FILES]
    env = dict(os.environ)
    env.pop("DESTDIR", None)
    try:
        r = subprocess.run([sys.executable, a.install_tree, a.kernel_src,
                            a.dkms_conf, src_dir], env=env)
        if not c.ok(r.returncode == 0, f"source tree installed to {src_dir}"):
            sys.exit(1)
        run(["dkms", "add", "-m", PKG, "-v", a.version], check=c)
        verified = read_verified(a.kernel_src)
        for kver in kvers:
            if kver not in verified:
                # the kernel suite's verified-kernels test says what to do
                print(f"  {kver}: not on verified-kernels: it must be refused")
                check_unlisted(c, kver, a.version)
                continue
            for step in (check_unlisted_kernel, check_other_release,
                         check_refused):
                timed(step, c, kver, a.version)
            timed(check_kernel, c, kver, a.version, want_asus)
        run(["dkms", "status", "-m", PKG])
    finally:
        run(["dkms", "remove", "-m", PKG, "-v", a.version, "--all"], check=c)
        shutil.rmtree(src_dir, ignore_errors=True)
        for path, existed in zip(MOK_FILES, mok_existed):
            if not existed and os.path.exists(path):
                os.unlink(path)     # ours: leave the machine as it was

    # the in-tree modules are back
    for kver in kvers:
        _, path = run(["modinfo", "-k", kver, "-n", "rfkill"])
        c.ok("/kernel/net/rfkill/" in path and "/updates/" not in path,
             f"{kver}: after dkms remove, rfkill is the in-tree one ({path})")

    print(f"test_dkms: {len(kvers)} kernel(s), "
          f"{'all checks passed' if not c.failed else f'{c.failed} failed'}")
    sys.exit(1 if c.failed else 0)


if __name__ == "__main__":
    main()
