# gdb ./linux -x gdbinit    (or: make gdb T=suite/test)
#
# UML runs the kernel in one host process and uses host signals for its own
# work: page faults of its guest processes (SIGSEGV), its timer (SIGALRM),
# I/O (SIGIO), IPIs and helpers (SIGUSR1, SIGCHLD, SIGWINCH).  gdb must pass
# them through without stopping, or the kernel cannot run.
handle SIGSEGV nostop noprint pass
handle SIGUSR1 nostop noprint pass
handle SIGIO nostop noprint pass
handle SIGALRM nostop noprint pass
handle SIGWINCH nostop noprint pass
handle SIGCHLD nostop noprint pass
set pagination off
set confirm off

# The kernel's scripts/gdb helpers (lx-dmesg, lx-ps, $lx_current(), ...),
# built next to the objects with CONFIG_GDB_SCRIPTS.
add-auto-load-safe-path build/obj
python
import os
helpers = os.path.join(os.getcwd(), "build", "obj", "vmlinux-gdb.py")
if os.path.exists(helpers):
    gdb.execute("source " + helpers)
else:
    gdb.write("gdbinit: %s not found: build first (make)\n" % helpers)
gdb.execute("source " + os.path.join(os.getcwd(), "uml", "gdb", "mshare.py"))
end
