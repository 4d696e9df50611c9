# lab-probe.sh: the checks of a running JupyterLab that .ci/docker.sh (the entry point on this machine)
# and scripts/container-check.sh (the built image) share, sourced by both. The sourcing script defines
# fail MESSAGE (print, exit non-zero) first.

# lab_get PORT PATH: the HTTP status of http://127.0.0.1:PORT/PATH (000 when nothing answers).
lab_get() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$1$2"; }

# lab_wait PORT TIMEOUT ALIVE LOGS: waits until the server answers /api with 200. ALIVE is a command that
# succeeds while the server's process runs, LOGS one that prints its log's tail; either failing (the
# process gone, or TIMEOUT seconds passed) prints the log and fails. Prints the seconds it waited.
lab_wait() {
  local port="$1" timeout="$2" alive="$3" logs="$4" began=$SECONDS
  until [ "$(lab_get "$port" /api)" = 200 ]; do
    if ! eval "$alive" >/dev/null 2>&1; then
      eval "$logs" >&2
      fail "lab exited before answering on port $port"
    fi
    if [ $((SECONDS - began)) -ge "$timeout" ]; then
      eval "$logs" >&2
      fail "lab did not answer on port $port within $timeout s"
    fi
    sleep 1
  done
  echo "$((SECONDS - began))"
}

# lab_check_token PORT TOKEN: /lab answers 200 with the token, /api/kernelspecs 401 or 403 without it,
# and the kernel specs (with the token) list gonb.
lab_check_token() {
  local port="$1" token="$2" code specs
  [ "$(lab_get "$port" "/lab?token=$token")" = 200 ] || fail "GET /lab with the token did not answer 200"
  code="$(lab_get "$port" /api/kernelspecs)"
  case "$code" in 401|403) ;; *) fail "GET /api/kernelspecs without the token answered $code, not 401/403" ;; esac
  specs="$(curl -s --max-time 5 -H "Authorization: token $token" "http://127.0.0.1:$port/api/kernelspecs")"
  grep -q '"gonb"' <<<"$specs" || fail "the server does not list the gonb kernel: $specs"
}
