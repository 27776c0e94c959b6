#!/usr/bin/env bash
# What the test suite needs besides npm packages. On Debian as root it installs them;
# elsewhere it stops at once and says what to install.
set -euo pipefail
missing=()
command -v curl >/dev/null 2>&1 || missing+=(curl)
# The IMAP tests run a real Dovecot (test/helpers/dovecot.ts); DOVECOT_BIN points elsewhere.
[ -x "${DOVECOT_BIN:-/usr/sbin/dovecot}" ] || missing+=(dovecot-imapd)
# The screening tests run a real rspamd and clamd (test/helpers/rspamd.ts, test/helpers/clamd.ts);
# RSPAMD_BIN and CLAMD_BIN point elsewhere.
[ -x "${RSPAMD_BIN:-/usr/bin/rspamd}" ] || missing+=(rspamd)
[ -x "${CLAMD_BIN:-/usr/sbin/clamd}" ] || missing+=(clamav-daemon)
# The PostgreSQL tests start their own server from these binaries (test/helpers/postgres.ts);
# PG_BIN points elsewhere.
if [ -n "${PG_BIN:-}" ]; then
  [ -x "$PG_BIN/initdb" ] || missing+=(postgresql)
else
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
fi
# The dashboard and browser tests drive Debian's Chromium (test/helpers/browser.ts); CHROMIUM_BIN
# points elsewhere.
[ -x "${CHROMIUM_BIN:-/usr/bin/chromium}" ] || missing+=(chromium)
# Debian's Courier-IMAP for the interop tests (test/helpers/courier.ts), unpacked, not installed:
# courier-imap conflicts with dovecot-imapd and pulls in a mail server. COURIER_ROOT points elsewhere.
courier_root="${COURIER_ROOT:-/opt/mailroom-test-deps/courier}"
if [ ! -x "$courier_root/usr/bin/imapd" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "unpacking courier-imap into $courier_root"
    work="$(mktemp -d)"
    courier_debs=(courier-imap courier-authlib libcourier-unicode4 libgamin0 gamin libidn12)
    (cd "$work" && { apt-get download -qq "${courier_debs[@]}" 2>/dev/null ||
      { apt-get update -qq && apt-get download -qq "${courier_debs[@]}"; }; }) >/dev/null
    mkdir -p "$courier_root"
    for deb in "$work"/*.deb; do dpkg -x "$deb" "$courier_root"; done
    rm -rf "$work"
  else
    echo "the Courier tests need Debian's courier-imap unpacked into $courier_root (see this script)" >&2
    exit 1
  fi
fi
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing test dependencies: ${missing[*]}"
  if [[ " ${missing[*]} " == *" postgresql "* ]]; then
    # No system cluster: the tests run their own (the package reads this before creating one).
    mkdir -p /etc/postgresql-common/createcluster.d
    echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/mailroom-tests.conf
  fi
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  # The packages start a system Dovecot, PostgreSQL, rspamd, clamd and freshclam where an init
  # system runs; the tests start their own (and freshclam cannot download signatures offline).
  if command -v systemctl >/dev/null 2>&1; then
    systemctl disable --now dovecot postgresql rspamd clamav-daemon clamav-freshclam >/dev/null 2>&1 || true
  fi
else
  echo "the tests need these Debian packages: ${missing[*]} (apt-get install ${missing[*]})" >&2
  exit 1
fi
