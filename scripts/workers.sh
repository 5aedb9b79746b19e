# shellcheck shell=bash
# workers.sh — helpers shared by up.sh and down.sh (sourced; needs ROOT and RUN).

# running_pid NAME: print the pid of our running NAME worker; fail if there is none.
running_pid() {
  local f=$RUN/pids/$1.pid pid args
  [[ -f $f ]] || return 1
  pid=$(<"$f")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  if [[ -r /proc/$pid/cmdline ]]; then
    args=$(tr '\0' ' ' <"/proc/$pid/cmdline")
  else
    args=$(ps -o args= -p "$pid" 2>/dev/null) || return 1
  fi
  [[ $args == "$ROOT/bin/$1"* ]] || return 1 # the pid was reused by something else
  printf '%s' "$pid"
}
