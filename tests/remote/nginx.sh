# Shared by the remote tests (sourced): their prerequisites, and nginx on 127.0.0.1 under a
# configuration of the test's own, so no system configuration or port is touched.

# require_tools NAME TOOL...: exit 77 (skip) when a tool is missing, 1 under CKPT_REQUIRE_ALL=1.
require_tools() {
  local name=$1
  shift
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "$name: missing prerequisite $tool (scripts/install-deps --test installs it)" >&2
      [ "${CKPT_REQUIRE_ALL:-0}" = 1 ] && exit 1
      exit 77
    fi
  done
}

# start_nginx WORK HTTP: writes WORK/nginx.conf with HTTP as the body of its http block (log
# formats, servers) and starts nginx on it; WORK/nginx.pid names it, WORK/logs holds its logs.
start_nginx() {
  local work=$1 http=$2
  mkdir -p "$work"/logs
  cat >"$work"/nginx.conf <<CONF
daemon on;
worker_processes 1;
error_log $work/logs/error.log;
pid $work/nginx.pid;
events { worker_connections 256; }
http {
  client_body_temp_path $work/t1; proxy_temp_path $work/t2; fastcgi_temp_path $work/t3;
  uwsgi_temp_path $work/t4; scgi_temp_path $work/t5;
$http
}
CONF
  /usr/sbin/nginx -c "$work"/nginx.conf -p "$work" -e "$work"/logs/error.log
}
