#!/bin/sh
# The official image's entrypoint, as far as the compose file relies on it: flags alone
# mean redis-server; as root, /data is handed to redis and the server runs as redis.
# The official build turns protected mode off (it would refuse the other containers).
set -e
case "$1" in -*) set -- redis-server "$@" ;; esac
if [ "$1" = redis-server ]; then
  case " $* " in *" --protected-mode "*) ;; *) set -- "$@" --protected-mode no ;; esac
  if [ "$(id -u)" = 0 ]; then
    chown -R redis:redis /data
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
exec "$@"
