#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Memory hotplug for the test machine.

usage: vm-hotplug.py --qmp SOCKET --ctl PREFIX [--log FILE]

Started by scripts/vm-run.sh next to QEMU for topologies with hot-pluggable
memory.  The guest asks on a serial line (QEMU's "pipe" chardev PREFIX:
PREFIX.out carries the guest's lines, PREFIX.in the answers), one request
per line, and this program carries each out on QEMU's QMP socket and
answers "ok" or "error <why>":

  add ID NODE MIB   object-add a memory-backend-ram "mem-ID" of MIB MiB and
                    device_add a pc-dimm "ID" with it on NODE: the guest's
                    ACPI memory hotplug then adds its memory, offline
  del ID            device_del "ID", wait for QEMU's DEVICE_DELETED event
                    (the guest ejected the DIMM after offlining its memory)
                    and object-del "mem-ID"

It exits when QEMU closes the QMP socket.
"""
import argparse
import json
import os
import select
import socket
import sys
import time

# A guest under TCG can take minutes to offline and eject a DIMM.
EJECT_WAIT = 900


class Qmp:
    def __init__(self, path, log):
        self.log = log
        self.events = []
        self.buf = b""
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(600):
            try:
                self.sock.connect(path)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise OSError(f"cannot connect to {path}")
        self.read()  # greeting
        self.command("qmp_capabilities")

    def read(self, timeout=None):
        """The next message (None if none came in time); events are also
        kept in self.events for wait_event()."""
        while b"\n" not in self.buf:
            ready, _, _ = select.select([self.sock], [], [], timeout)
            if not ready:
                return None
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("QMP socket closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        msg = json.loads(line)
        self.log(f"qmp < {line.decode(errors='replace')}")
        if "event" in msg:
            self.events.append(msg)
        return msg

    def command(self, name, **args):
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        self.log(f"qmp > {json.dumps(msg)}")
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self.read()
            if "event" in reply:
                continue
            if "error" in reply:
                raise RuntimeError(reply["error"].get("desc", "QMP error"))
            return reply.get("return")

    def wait_event(self, name, device, timeout):
        end = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev["event"] == name and \
                   ev.get("data", {}).get("device") == device:
                    del self.events[i]
                    return True
            left = end - time.monotonic()
            if left <= 0:
                return False
            self.read(left)


def handle(qmp, words):
    if len(words) == 4 and words[0] == "add":
        dimm, node, mib = words[1], int(words[2]), int(words[3])
        qmp.command("object-add", **{"qom-type": "memory-backend-ram",
                                     "id": f"mem-{dimm}",
                                     "size": mib << 20})
        try:
            qmp.command("device_add", driver="pc-dimm", id=dimm,
                        memdev=f"mem-{dimm}", node=node)
        except RuntimeError:
            qmp.command("object-del", id=f"mem-{dimm}")
            raise
        return "ok"
    if len(words) == 2 and words[0] == "del":
        dimm = words[1]
        qmp.command("device_del", id=dimm)
        if not qmp.wait_event("DEVICE_DELETED", dimm, EJECT_WAIT):
            return f"error {dimm} was not ejected by the guest"
        qmp.command("object-del", id=f"mem-{dimm}")
        return "ok"
    return "error unknown request"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qmp", required=True)
    ap.add_argument("--ctl", required=True)
    ap.add_argument("--log")
    opts = ap.parse_args()

    logf = open(opts.log, "a", buffering=1) if opts.log else sys.stderr

    def log(text):
        print(f"{time.strftime('%H:%M:%S')} {text}", file=logf)

    qmp = Qmp(opts.qmp, log)
    # O_RDWR: never see EOF while the guest has not written yet.
    requests = os.open(opts.ctl + ".out", os.O_RDWR)
    answers = os.open(opts.ctl + ".in", os.O_RDWR)
    pending = b""
    while True:
        ready, _, _ = select.select([requests, qmp.sock], [], [])
        if qmp.sock in ready:
            # Events between requests; EOFError when QEMU is gone.
            try:
                qmp.read(0)
            except EOFError:
                return 0
        if requests not in ready:
            continue
        pending += os.read(requests, 4096)
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            text = line.decode(errors="replace").strip()
            if not text:
                continue
            log(f"guest > {text}")
            try:
                answer = handle(qmp, text.split())
            except (RuntimeError, ValueError) as err:
                answer = f"error {err}"
            except EOFError:
                return 0
            log(f"guest < {answer}")
            os.write(answers, answer.encode() + b"\n")


if __name__ == "__main__":
    sys.exit(main())
