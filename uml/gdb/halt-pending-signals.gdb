# Sourced by uml/halt-check.sh after gdbinit.  main() calls
# deactivate_all_fds() once the kernel has halted, before it decides what
# the signals that came during the halt become: a timer tick (SIGALRM)
# and an I/O event (SIGIO) are made pending there, as the host delivers
# them in that window on its own, rarely.
# A panic's os_dump_core() sends SIGTERM and SIGCONT to the process
# group: let them pass, so that the run ends in the SIGABRT that follows.
handle SIGTERM nostop print pass
handle SIGCONT nostop print pass
break deactivate_all_fds
commands
  silent
  printf "halt-check: a SIGIO and a SIGALRM pending at the halt (signals_pending was %d)\n", signals_pending
  set var signals_pending = 3
  continue
end
