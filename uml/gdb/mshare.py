# SPDX-License-Identifier: GPL-2.0
#
# gdb commands for mshare in ./linux (UML).  Loaded by the repository's
# gdbinit after the kernel's own scripts/gdb helpers (lx-*), whose
# utilities this reuses.
#
#   mshare-regions        every live region: name, start, size, refcount,
#                         deleted flag and the region's mm
#   mshare-pgd ADDR       the PGD entry for ADDR in the current task's mm and
#                         in the region's mm, side by side, and whether the
#                         task shares the region's page tables there
#   mshare-layout [NAME]  each region's vmas (the region's mm's): range,
#                         protection, anonymous or which file, as
#                         <debugfs>/mshare/layout shows them
#   mshare-break          break in find_shared_vma(); each hit prints the
#                         guest (faulting) address, then at its return the
#                         host (region) address and the vma it found

import gdb

try:
    from linux import lists
    from linux import mapletree
    from linux import tasks
    from linux import vfs
except ImportError:
    lists = None
    mapletree = None
    tasks = None
    vfs = None


VM_FAULT_NOPAGE = 0x100     # include/linux/mm_types.h
VM_READ, VM_WRITE, VM_EXEC = 0x1, 0x2, 0x4     # include/linux/mm.h


def region_list():
    """Yield every struct mshare_data on the mshare_regions list."""
    head = gdb.parse_and_eval("mshare_regions")
    data_type = gdb.lookup_type("struct mshare_data")
    if lists is not None:
        for entry in lists.list_for_each_entry(head, data_type.pointer(),
                                               "list"):
            yield entry
        return
    # Without scripts/gdb: walk the list_head by hand.
    offset = int(gdb.parse_and_eval(
        "(unsigned long)&((struct mshare_data *)0)->list"))
    node = head["next"]
    while int(node) != int(head.address):
        yield gdb.Value(int(node) - offset).cast(data_type.pointer())
        node = node["next"]


def pgdir_shift():
    # x86-64 built for 4 and 5 levels keeps the shift in a variable (39 or
    # 48, as booted); UML x86_64 in 6.12 has three levels, PGDIR_SIZE 1 GiB.
    try:
        return int(gdb.parse_and_eval("pgdir_shift"))
    except gdb.error:
        return 30


def pgd_entry(mm, addr):
    index = (addr >> pgdir_shift()) & 511
    return int(mm["pgd"][index]["pgd"])


def region_for(addr):
    for info in region_list():
        start = int(info["minfo"]["start"])
        size = int(info["minfo"]["size"])
        if start <= addr < start + size:
            return info
    return None


class MshareRegions(gdb.Command):
    """List the live mshare regions: name, start, size, refcount, deleted, mm."""

    def __init__(self):
        super().__init__("mshare-regions", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        count = 0
        gdb.write("%-24s %-14s %-12s %8s %7s %s\n" %
                  ("name", "start", "size", "refcount", "deleted", "mm"))
        for info in region_list():
            count += 1
            gdb.write("%-24s %#-14x %#-12x %8d %7d %s\n" % (
                info["name"].string(),
                int(info["minfo"]["start"]), int(info["minfo"]["size"]),
                int(info["refcnt"]["refs"]["counter"]),
                int(info["deleted"]), info["mm"]))
        gdb.write("mshare-regions: %d region(s)\n" % count)


class MsharePgd(gdb.Command):
    """mshare-pgd ADDR: PGD entry of ADDR in the current task's mm and in the
region's mm, and whether they are the same (shared page tables)."""

    def __init__(self):
        super().__init__("mshare-pgd", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if not arg:
            raise gdb.GdbError("usage: mshare-pgd ADDR")
        addr = int(gdb.parse_and_eval(arg))
        task = gdb.parse_and_eval("$lx_current()") if tasks else \
            gdb.parse_and_eval("current_task")
        mm = task["mm"]
        info = region_for(addr)
        mine = pgd_entry(mm, addr) if int(mm) else None
        gdb.write("address %#x, PGD index %d\n" %
                  (addr, (addr >> pgdir_shift()) & 511))
        gdb.write("  task %s (pid %d) mm %s: pgd entry %s\n" % (
            task["comm"].string(), int(task["pid"]), mm,
            "%#x" % mine if mine is not None else "(no mm)"))
        if info is None:
            gdb.write("  no mshare region covers this address\n")
            return
        theirs = pgd_entry(info["mm"], addr)
        gdb.write("  region %s mm %s: pgd entry %#x\n" % (
            info["name"].string(), info["mm"], theirs))
        shared = mine is not None and mine == theirs and theirs != 0
        gdb.write("  shared: %s\n" % ("yes" if shared else "no"))


def vma_line(vma):
    """A vma as <debugfs>/mshare/layout prints it."""
    flags = int(vma["vm_flags"])
    prot = "".join(c if flags & bit else "-" for c, bit in
                   (("r", VM_READ), ("w", VM_WRITE), ("x", VM_EXEC)))
    line = "  %#x-%#x %s " % (int(vma["vm_start"]), int(vma["vm_end"]), prot)
    if not int(vma["vm_file"]):
        return line + "anon"
    dentry = vma["vm_file"]["f_path"]["dentry"]
    return line + "file %s pgoff=%#x" % (vfs.dentry_name(dentry),
                                         int(vma["vm_pgoff"]))


class MshareLayout(gdb.Command):
    """mshare-layout [NAME]: the vmas of each region (or of region NAME):
range, protection, anonymous or the file moved in, from the region's mm."""

    def __init__(self):
        super().__init__("mshare-layout", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        if mapletree is None:
            raise gdb.GdbError("mshare-layout needs the kernel's scripts/gdb")
        vma_type = gdb.lookup_type("struct vm_area_struct").pointer()
        for info in region_list():
            name = info["name"].string()
            if arg and name != arg:
                continue
            gdb.write("name=%s\n" % name)
            addr = int(info["minfo"]["start"])
            end = addr + int(info["minfo"]["size"])
            while addr < end:
                entry = mapletree.mtree_load(info["mm"]["mm_mt"].address,
                                             addr)
                if entry is None or not int(entry):
                    break
                vma = entry.cast(vma_type)
                gdb.write(vma_line(vma) + "\n")
                addr = int(vma["vm_end"])


# Stack pointers of find_shared_vma() calls whose return is being watched:
# gdb may evaluate the entry breakpoint again for the same call (when it
# steps off it for `finish`), and that call must not be reported twice.
pending_returns = set()


class FindSharedVmaReturn(gdb.FinishBreakpoint):
    def __init__(self, frame, vmap, addrp, guest_addr, key):
        super().__init__(frame, internal=True)
        self.vmap = vmap
        self.addrp = addrp
        self.guest_addr = guest_addr
        self.key = key

    def stop(self):
        pending_returns.discard(self.key)
        vma = self.vmap.dereference()
        ret = int(self.return_value)
        if ret == VM_FAULT_NOPAGE:
            gdb.write("mshare: find_shared_vma returned VM_FAULT_NOPAGE: "
                      "copied the region's PGD entry for guest %#x into the "
                      "task's mm; the fault is retried\n" % self.guest_addr)
            return False
        gdb.write("mshare: find_shared_vma returned %d: guest %#x -> "
                  "host %#x, vma %s" % (ret, self.guest_addr,
                                        int(self.addrp.dereference()), vma))
        if int(vma):
            gdb.write(" [%#x-%#x] mm %s" % (int(vma["vm_start"]),
                                            int(vma["vm_end"]),
                                            vma["vm_mm"]))
        gdb.write("\n")
        return False

    def out_of_scope(self):
        pending_returns.discard(self.key)


class FindSharedVmaBreakpoint(gdb.Breakpoint):
    def __init__(self):
        super().__init__("find_shared_vma")

    def stop(self):
        frame = gdb.newest_frame()
        key = int(frame.read_register("sp"))
        if key in pending_returns:
            return False
        vmap = frame.read_var("vmap")
        addrp = frame.read_var("addrp")
        guest = int(addrp.dereference())
        vma = vmap.dereference()
        gdb.write("mshare: fault at guest address %#x in vma [%#x-%#x] "
                  "of mm %s\n" % (guest, int(vma["vm_start"]),
                                  int(vma["vm_end"]), vma["vm_mm"]))
        pending_returns.add(key)
        FindSharedVmaReturn(frame, vmap, addrp, guest, key)
        return True


class MshareBreak(gdb.Command):
    """mshare-break: stop in find_shared_vma() and print what it resolves."""

    def __init__(self):
        super().__init__("mshare-break", gdb.COMMAND_BREAKPOINTS)

    def invoke(self, arg, from_tty):
        FindSharedVmaBreakpoint()


MshareRegions()
MsharePgd()
MshareLayout()
MshareBreak()
