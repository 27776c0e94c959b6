#!/usr/bin/env bash
# What the test suite needs besides npm packages. On Debian as root it installs them;
# elsewhere it stops at once and says what to install.
set -euo pipefail
missing=()
command -v curl >/dev/null 2>&1 || missing+=(curl)
# The IMAP tests run a real Dovecot (test/helpers/dovecot.ts); DOVECOT_BIN points elsewhere.
[ -x "${DOVECOT_BIN:-/usr/sbin/dovecot}" ] || missing+=(dovecot-imapd)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing test dependencies: ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  # The package starts a system Dovecot where an init system runs; the tests start their own.
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now dovecot >/dev/null 2>&1 || true; fi
else
  echo "the tests need these Debian packages: ${missing[*]} (apt-get install ${missing[*]})" >&2
  exit 1
fi
