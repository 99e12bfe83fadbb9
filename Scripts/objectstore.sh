#!/usr/bin/env bash
# A real S3-compatible object store for the sync tests: a single-node Ceph cluster on loopback from Debian's
# packages (one monitor, one memstore OSD, cluster auth off) and its object gateway (radosgw, beast frontend on
# 127.0.0.1), with one S3 user. All state lives in one folder, $OBJECTSTORE_DIR (default $TMPDIR/docpkg-objectstore).
#
#   Scripts/objectstore.sh start   installs ceph-mon/ceph-osd/radosgw if missing, starts the cluster and the gateway
#                                  (nothing if already running), waits until S3 answers, prints the env assignments
#   Scripts/objectstore.sh install only installs what is missing (.ci/run does it early, in the background)
#   Scripts/objectstore.sh env     prints the env assignments of the running store (for `eval`)
#   Scripts/objectstore.sh stop    stops every daemon it started and removes the folder; nothing is left running
#
# HTTPS: beside the plain endpoint the gateway serves TLS on OBJECTSTORE_HTTPS_PORT (default the plain port + 1)
# with a certificate for 127.0.0.1 and localhost from a throwaway authority made here with openssl ($DIR/tls/ca.pem).
# Two `openssl s_server`s serve the failure cases on the next ports: a certificate of that authority for another
# host name (+2) and an expired one (+3); they only complete handshakes, enough to see a client refuse them.
#
# OBJECTSTORE_BYTES sets the memory-backed disk's size (default 4 GiB; a by-hand 4 GiB push needs more).
# The env assignments: DOCPKG_S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, and
# DOCPKG_S3_HTTPS_ENDPOINT, DOCPKG_S3_CA_BUNDLE, DOCPKG_S3_WRONG_HOST_ENDPOINT, DOCPKG_S3_EXPIRED_ENDPOINT. The sync tests run
# against the server only when DOCPKG_S3_ENDPOINT is set (`make sync-test` does all of this).
set -euo pipefail

DIR="${OBJECTSTORE_DIR:-${TMPDIR:-/tmp}/docpkg-objectstore}"
MON_PORT="${OBJECTSTORE_MON_PORT:-16789}"
S3_PORT="${OBJECTSTORE_PORT:-17480}"
HTTPS_PORT="${OBJECTSTORE_HTTPS_PORT:-$((S3_PORT + 1))}"
WRONG_HOST_PORT=$((HTTPS_PORT + 1))
EXPIRED_PORT=$((HTTPS_PORT + 2))
TLS="$DIR/tls"
ACCESS_KEY="docpkgtestaccesskey"
SECRET_KEY="docpkgtestsecretkey0123456789"
CONF="$DIR/ceph.conf"
CEPH=(ceph -c "$CONF" --connect-timeout 10)

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

install_ceph() {
  local need=()
  command -v ceph-mon >/dev/null || need+=(ceph-mon)
  command -v ceph-osd >/dev/null || need+=(ceph-osd)
  command -v radosgw >/dev/null || need+=(radosgw)
  command -v ceph >/dev/null || need+=(ceph-common)
  command -v curl >/dev/null || need+=(curl)
  if [ ${#need[@]} -eq 0 ]; then return; fi
  echo "objectstore: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
}

print_env() {
  echo "export DOCPKG_S3_ENDPOINT=http://127.0.0.1:$S3_PORT"
  echo "export AWS_ACCESS_KEY_ID=$ACCESS_KEY"
  echo "export AWS_SECRET_ACCESS_KEY=$SECRET_KEY"
  echo "export AWS_REGION=us-east-1"
  echo "export DOCPKG_S3_HTTPS_ENDPOINT=https://127.0.0.1:$HTTPS_PORT"
  echo "export DOCPKG_S3_CA_BUNDLE=$TLS/ca.pem"
  echo "export DOCPKG_S3_WRONG_HOST_ENDPOINT=https://127.0.0.1:$WRONG_HOST_PORT"
  echo "export DOCPKG_S3_EXPIRED_ENDPOINT=https://127.0.0.1:$EXPIRED_PORT"
}

# A throwaway authority and three certificates it signs: for 127.0.0.1 and localhost (served by the gateway), for
# another host name, and one that expired (notAfter a day before now).
make_certificates() {
  mkdir -p "$TLS"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TLS/ca.key" -out "$TLS/ca.pem" -days 30 \
    -subj "/CN=docpkg throwaway test authority" 2>/dev/null
  local name days san
  for name in server wrong-host expired; do
    days=30
    san="subjectAltName=IP:127.0.0.1,DNS:localhost"
    [ "$name" = wrong-host ] && san="subjectAltName=DNS:another-host.invalid"
    [ "$name" = expired ] && days=-1
    openssl req -newkey rsa:2048 -nodes -keyout "$TLS/$name.key" -out "$TLS/$name.csr" -subj "/CN=$name" 2>/dev/null
    printf '%s\n' "$san" >"$TLS/$name.ext"
    openssl x509 -req -in "$TLS/$name.csr" -CA "$TLS/ca.pem" -CAkey "$TLS/ca.key" -CAcreateserial -days "$days" \
      -extfile "$TLS/$name.ext" -out "$TLS/$name.pem" 2>/dev/null
  done
}

# Serves the certificate $1 on port $2 with `openssl s_server` (handshakes only), its pid in $DIR/run/$1.pid.
serve_tls() {
  openssl s_server -quiet -accept "127.0.0.1:$2" -cert "$TLS/$1.pem" -key "$TLS/$1.key" -www \
    </dev/null >>"$DIR/log/$1-s_server.log" 2>&1 &
  echo $! >"$DIR/run/$1.pid"
}

s3_answers() {
  # An anonymous ListBuckets answers 200 once the gateway serves requests.
  curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$S3_PORT/" 2>/dev/null
}

# Sends SIGTERM to the daemon whose pid file is $1 and waits (up to 20 s) until it has exited, then SIGKILL.
stop_daemon() {
  local pidfile="$1" pid
  [ -f "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

stop() {
  [ -d "$DIR" ] || return 0
  stop_daemon "$DIR/run/expired.pid"
  stop_daemon "$DIR/run/wrong-host.pid"
  stop_daemon "$DIR/run/rgw.pid"
  stop_daemon "$DIR/run/osd.0.pid"
  stop_daemon "$DIR/run/mon.a.pid"
  rm -rf "$DIR"
}

write_conf() {
  local fsid="$1"
  cat >"$CONF" <<EOF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$MON_PORT
mon initial members = a
public addr = 127.0.0.1
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
run dir = $DIR/run
admin socket = $DIR/run/\$name.asok
pid file = $DIR/run/\$name.pid
log file = $DIR/log/\$name.log
mon data = $DIR/mon/\$cluster-\$id
osd data = $DIR/osd/\$cluster-\$id
osd objectstore = memstore
memstore device bytes = ${OBJECTSTORE_BYTES:-4294967296}
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd crush chooseleaf type = 0
osd crush update on start = false
osd class update on start = false
mon allow pool size one = true
mon allow pool delete = true
mon max pg per osd = 1000
mon warn on pool no redundancy = false
osd max object name len = 460
osd max object namespace len = 64

[mon.a]
pid file = $DIR/run/mon.a.pid

[osd.0]
pid file = $DIR/run/osd.0.pid

[client.rgw.gw]
rgw frontends = beast endpoint=127.0.0.1:$S3_PORT ssl_endpoint=127.0.0.1:$HTTPS_PORT ssl_certificate=$TLS/server.pem ssl_private_key=$TLS/server.key
rgw data = $DIR/rgw
pid file = $DIR/run/rgw.pid
rgw dns name = 127.0.0.1
EOF
}

start() {
  install_ceph
  if [ -f "$DIR/run/rgw.pid" ] && kill -0 "$(cat "$DIR/run/rgw.pid")" 2>/dev/null && s3_answers; then
    print_env
    return
  fi
  stop  # a half-started or dead store: start from nothing
  mkdir -p "$DIR"/{run,log,mon/ceph-a,osd/ceph-0,rgw}
  local fsid
  fsid="$(cat /proc/sys/kernel/random/uuid)"
  write_conf "$fsid"
  make_certificates

  monmaptool --create --clobber --fsid "$fsid" --addv a "[v1:127.0.0.1:$MON_PORT]" "$DIR/monmap" >/dev/null
  ceph-authtool --create-keyring "$DIR/mon.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" --keyring "$DIR/mon.keyring"
  ceph-mon -c "$CONF" -i a

  local osd_uuid
  osd_uuid="$(cat /proc/sys/kernel/random/uuid)"
  "${CEPH[@]}" osd new "$osd_uuid" 0 >/dev/null
  ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$osd_uuid" 2>>"$DIR/log/osd-mkfs.log"
  # Placed in the CRUSH map here rather than by the OSD at start (that update is refused now and then, and the OSD
  # then exits).
  "${CEPH[@]}" osd crush add osd.0 1.0 root=default >/dev/null 2>>"$DIR/log/osd-crush.log"
  ceph-osd -c "$CONF" -i 0 2>>"$DIR/log/osd-start.log"

  radosgw -c "$CONF" -n client.rgw.gw
  serve_tls wrong-host "$WRONG_HOST_PORT"
  serve_tls expired "$EXPIRED_PORT"
  for _ in $(seq 1200); do
    if s3_answers; then break; fi
    for daemon in mon.a osd.0 rgw; do
      if ! kill -0 "$(cat "$DIR/run/$daemon.pid" 2>/dev/null || echo 0)" 2>/dev/null; then
        echo "objectstore: $daemon is not running; logs in $DIR/log" >&2
        exit 1
      fi
    done
    sleep 0.1
  done
  if ! s3_answers; then
    echo "objectstore: the gateway on 127.0.0.1:$S3_PORT does not answer after 120 s; logs in $DIR/log" >&2
    exit 1
  fi
  radosgw-admin -c "$CONF" -n client.admin user create --uid=docpkg --display-name="docpkg tests" \
    --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >/dev/null
  print_env
}

case "${1:-}" in
  install) install_ceph ;;
  start) start ;;
  stop) stop ;;
  env) print_env ;;
  *)
    echo "usage: $0 install|start|stop|env" >&2
    exit 64
    ;;
esac
