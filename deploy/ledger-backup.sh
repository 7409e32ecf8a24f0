#!/bin/sh
# One backup of Ledger's books (deploy/ledger-backup.service): `ledger backup` into
# LEDGER_BACKUP_DIR as ledger-<UTC time>.ledger-backup, then only the newest LEDGER_BACKUP_KEEP
# backups kept. Encrypted (--encrypt) with the passphrase of the systemd credential
# backup-passphrase (LoadCredential=), handed to `ledger backup` in LEDGER_BACKUP_PASSPHRASE as it
# reads it. Without the credential it fails and writes nothing (issue 36 item 3): a plain backup
# can be swapped by anyone who can write to the directory, and one made silently would be
# restored by the same hand. DATABASE_URL as the service's.
set -eu
dir=${LEDGER_BACKUP_DIR:?set LEDGER_BACKUP_DIR to the backups directory}
keep=${LEDGER_BACKUP_KEEP:-14}
case $keep in
  '' | *[!0-9]* | 0) echo "ledger-backup: LEDGER_BACKUP_KEEP must be a whole number, 1 or more" >&2; exit 1 ;;
esac
ledger="$(cd "$(dirname "$0")/.." && pwd)/bin/ledger.js"
file="$dir/ledger-$(date -u +%Y-%m-%dT%H%M%SZ).ledger-backup"
credential="${CREDENTIALS_DIRECTORY:-}/backup-passphrase"
if [ -z "${CREDENTIALS_DIRECTORY:-}" ] || [ ! -r "$credential" ]; then
  echo "ledger-backup: no credential backup-passphrase (LoadCredential= in ledger-backup.service): no backup written" >&2
  exit 1
fi
# `ledger backup --encrypt` refuses an empty passphrase or one under 12 characters itself.
LEDGER_BACKUP_PASSPHRASE=$(cat "$credential")
export LEDGER_BACKUP_PASSPHRASE
node "$ledger" backup --encrypt "$file"
# The newest $keep by name (the names sort by time); never anything else in the directory.
ls -1 "$dir" | grep -E '^ledger-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{6}Z\.ledger-backup$' | sort -r | tail -n +"$((keep + 1))" |
  while read -r old; do rm -f -- "$dir/$old"; done
