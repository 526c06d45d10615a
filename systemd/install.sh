#!/usr/bin/env bash
# Install (or upgrade) checkd as a systemd service on a Debian or Ubuntu server.
# Run as root from a checkout of checkd:
#
#   sudo systemd/install.sh            # build, install, enable and start
#   sudo systemd/install.sh --no-start # everything but starting the service
#
# What it does (docs/operations.md explains each part):
#   - builds checkd in a scratch copy of the checkout (npm ci, tsc) and installs
#     the package to /opt/checkd with its production dependencies only
#     (npm ci --omit=dev); an earlier install is replaced as a whole
#   - creates the static group "checkd": its members (operators) can use the
#     gRPC socket /run/checkd/grpc.sock, e.g. for checktop over SSH
#   - installs the unit to /etc/systemd/system/checkd.service and, if it does
#     not exist yet, /etc/checkd/checkd.env from systemd/checkd.env.example
#   - installs the commands `checkd` and `checktop` to /usr/local/bin (wrappers
#     that default to the service's data dir and gRPC socket)
#   - systemctl enable --now checkd (restart when it was already running)
#
# Needs: Node.js >= 20 and npm installed system-wide (not under /root or
# /home: ProtectHome=yes hides those from the service). Optional: python3, make
# and g++ let npm build the unix-dgram addon for sd_notify; without them checkd
# uses the systemd-notify tool instead, and a drop-in allows that
# (NotifyAccess=all, checkd.service.d/notify-access.conf).
#
# The paths can be changed for a test run: PREFIX, ETC_DIR, UNIT_DIR, BIN_DIR.
set -euo pipefail

PREFIX=${PREFIX:-/opt/checkd}
ETC_DIR=${ETC_DIR:-/etc/checkd}
UNIT_DIR=${UNIT_DIR:-/etc/systemd/system}
BIN_DIR=${BIN_DIR:-/usr/local/bin}
GROUP=checkd
# Must match User= in checkd.service (a dynamic user; see the comment there).
SERVICE_USER=checkd-daemon
# Node options of `checkd serve` (daemon/shared/node-flags.ts says why).
NODE_FLAGS=--max-semi-space-size=4
START=1

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
}

for arg in "$@"; do
  case "$arg" in
    --no-start) START=0 ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      echo "install.sh: unknown argument: $arg (try --help)" >&2
      exit 2
      ;;
  esac
done

die() {
  echo "install.sh: error: $*" >&2
  exit 1
}
say() { echo "==> $*"; }
warn() { echo "install.sh: warning: $*" >&2; }

[ "$(id -u)" = 0 ] || die "run as root: sudo $0 $*"
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ -f "$SRC/package.json" ] && [ -f "$SRC/systemd/checkd.service" ] || die "run this script from a checkd checkout ($SRC is not one)"
command -v apt-get >/dev/null 2>&1 || warn "this is not a Debian/Ubuntu system; carrying on anyway"

NODE=$(command -v node || true)
[ -n "$NODE" ] || die "Node.js 20 or newer is needed and not installed; Debian/Ubuntu: https://github.com/nodesource/distributions"
NODE=$(readlink -f "$NODE")
major=$("$NODE" -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || die "Node.js $("$NODE" --version) is too old: checkd needs 20 or newer"
case "$NODE" in
  /root/* | /home/* | /run/user/*) die "node is at $NODE, which the service cannot see (ProtectHome=yes); install Node.js system-wide" ;;
esac
command -v npm >/dev/null 2>&1 || die "npm is needed (it comes with Node.js)"

SYSTEMD=0
[ -d /run/systemd/system ] && SYSTEMD=1
[ "$SYSTEMD" = 1 ] || warn "systemd is not running here: the unit is installed but not enabled or started"

# ---- 1. build in a scratch copy --------------------------------------------
BUILD=$(mktemp -d /tmp/checkd-build.XXXXXX)
trap 'rm -rf "$BUILD"' EXIT
say "building checkd from $SRC (in $BUILD)"
mkdir "$BUILD/src"
tar -C "$SRC" --exclude=./node_modules --exclude=./dist --exclude=./.git --exclude=./data -cf - . | tar -C "$BUILD/src" -xf -
# npm ci runs the package's `prepare` script, which is the build (tsc).
(cd "$BUILD/src" && npm ci --no-audit --no-fund --loglevel=error)
[ -f "$BUILD/src/dist/daemon/cli.js" ] || die "the build did not produce dist/daemon/cli.js"
# The files a published package holds (package.json "files"): dist, proto, systemd.
(cd "$BUILD/src" && npm pack --ignore-scripts --pack-destination "$BUILD" --loglevel=error >/dev/null)

# ---- 2. install to $PREFIX with production dependencies only ---------------
STAGE="$PREFIX.new"
rm -rf "$STAGE"
mkdir -p "$STAGE"
tar -C "$STAGE" --strip-components=1 -xzf "$BUILD"/checkd-*.tgz
cp "$BUILD/src/package-lock.json" "$STAGE/"
say "installing production dependencies in $STAGE"
# No build here: `prepare` would need the dev dependencies (typescript).
(cd "$STAGE" && npm pkg delete scripts.prepare && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
[ -d "$STAGE/node_modules/lmdb" ] || die "npm did not install the dependencies in $STAGE"
ADDON=1
if [ ! -f "$STAGE/node_modules/unix-dgram/build/Release/unix_dgram.node" ]; then
  ADDON=0
  warn "the unix-dgram addon was not built (no compiler?): checkd will notify systemd through systemd-notify"
fi
chown -R root:root "$STAGE"
chmod -R u=rwX,go=rX "$STAGE"
if [ -d "$PREFIX" ]; then
  rm -rf "$PREFIX.old"
  mv "$PREFIX" "$PREFIX.old"
fi
mv "$STAGE" "$PREFIX"
say "installed to $PREFIX$([ -d "$PREFIX.old" ] && echo " (the previous version is in $PREFIX.old)")"

# ---- 3. the operators' group --------------------------------------------------
if getent group "$GROUP" >/dev/null; then
  say "group $GROUP exists"
else
  groupadd --system "$GROUP"
  say "created the system group $GROUP (add operators: usermod -aG $GROUP NAME)"
fi
if getent passwd "$SERVICE_USER" >/dev/null; then
  warn "a static user $SERVICE_USER exists: systemd runs checkd as that user instead of a dynamic one"
fi

# ---- 4. unit, settings, commands ------------------------------------------------
install -d -m 0755 "$UNIT_DIR"
install -m 0644 "$PREFIX/systemd/checkd.service" "$UNIT_DIR/checkd.service"
EXEC="$NODE $NODE_FLAGS $PREFIX/dist/daemon/cli.js serve"
if ! grep -qxF "ExecStart=$EXEC" "$UNIT_DIR/checkd.service"; then
  sed -i "s|^ExecStart=.*|ExecStart=$EXEC|" "$UNIT_DIR/checkd.service"
fi
say "unit: $UNIT_DIR/checkd.service"
# The unit takes notifications from checkd's own process only (NotifyAccess=main);
# systemd-notify, the fallback without the addon, is a child process.
DROPIN="$UNIT_DIR/checkd.service.d/notify-access.conf"
if [ "$ADDON" = 0 ]; then
  install -d -m 0755 "$UNIT_DIR/checkd.service.d"
  printf '# Written by install.sh: no unix-dgram addon, so checkd notifies systemd through systemd-notify.\n[Service]\nNotifyAccess=all\n' >"$DROPIN"
  say "drop-in: $DROPIN (NotifyAccess=all for systemd-notify)"
else
  rm -f "$DROPIN"
fi

install -d -m 0755 "$ETC_DIR"
if [ -e "$ETC_DIR/checkd.env" ]; then
  say "settings: keeping $ETC_DIR/checkd.env (the current example is $PREFIX/systemd/checkd.env.example)"
else
  install -m 0600 "$PREFIX/systemd/checkd.env.example" "$ETC_DIR/checkd.env"
  say "settings: created $ETC_DIR/checkd.env; set CHECKD_BASE_URL there"
fi

install -d -m 0755 "$BIN_DIR"
cat >"$BIN_DIR/checkd.tmp" <<EOF
#!/bin/sh
# checkd commands for the service's data (installed by checkd's install.sh).
: "\${CHECKD_DATA_DIR:=/var/lib/checkd}"
export CHECKD_DATA_DIR
exec $NODE $PREFIX/dist/daemon/cli.js "\$@"
EOF
cat >"$BIN_DIR/checktop.tmp" <<EOF
#!/bin/sh
# checktop for the local checkd service (installed by checkd's install.sh).
: "\${CHECKD_GRPC:=unix:/run/checkd/grpc.sock}"
export CHECKD_GRPC
exec $NODE $PREFIX/dist/tui/cli.js "\$@"
EOF
chmod 0755 "$BIN_DIR/checkd.tmp" "$BIN_DIR/checktop.tmp"
mv "$BIN_DIR/checkd.tmp" "$BIN_DIR/checkd"
mv "$BIN_DIR/checktop.tmp" "$BIN_DIR/checktop"
say "commands: $BIN_DIR/checkd, $BIN_DIR/checktop"

# ---- 5. enable and start ------------------------------------------------------------
if [ "$SYSTEMD" = 1 ]; then
  was_active=0
  systemctl is-active --quiet checkd && was_active=1
  systemctl daemon-reload
  if [ "$START" = 1 ]; then
    # Type=notify: these return once checkd has said READY=1 (ports bound), or failed.
    systemctl enable --now checkd
    [ "$was_active" = 1 ] && systemctl restart checkd
    if ! systemctl is-active --quiet checkd; then
      journalctl -u checkd -n 30 --no-pager >&2 || true
      die "checkd did not start; the previous version (if any) is in $PREFIX.old"
    fi
    rm -rf "$PREFIX.old"
    say "checkd is running: systemctl status checkd; logs: journalctl -u checkd -f"
  else
    systemctl enable checkd
    say "enabled, not started (--no-start): systemctl start checkd"
  fi
fi

cat <<EOF

Next steps:
  1. set CHECKD_BASE_URL (and CHECKD_LISTEN) in $ETC_DIR/checkd.env, then: systemctl restart checkd
  2. create a project and note its keys:  sudo checkd project create --name NAME
  3. let an operator use checktop:        sudo usermod -aG $GROUP NAME   (then log in again)
                                         ssh -t HOST checktop --grpc unix:/run/checkd/grpc.sock
  Backups, export/import, metrics, logs: docs/operations.md
EOF
