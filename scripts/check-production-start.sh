#!/usr/bin/env bash
# The compiled production start, as an operator runs it (DESIGN.md 11): `npm run build`, then a
# scratch directory holding only package.json, package-lock.json, bin/, dist/ and each workspace
# package's package.json and dist/ (packages/{tron,sdk,devnet}, linked as node_modules/@stablegate/*),
# with production dependencies only (`npm ci --omit=dev`: no tsx, no Vite, no TypeScript), then
# `stablegate migrate`, `serve --role api` and `serve --role worker` with NODE_ENV=production against
# a fresh PostgreSQL database and a devnet (the compiled @stablegate/devnet through its bin,
# stablegate-devnet), and a merchant and an order created and read over HTTP
# (scripts/production-smoke.mjs).
#   SKIP_BUILD=1     reuse the current dist/
#   ADMIN_DATABASE_URL  where to create the scratch database (default postgres://postgres@127.0.0.1:5432/postgres)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
ADMIN_URL="${ADMIN_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
DB="sg_prodstart_$$"
SCRATCH=$(mktemp -d)
PIDS=()

cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$SCRATCH"
}
trap cleanup EXIT

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

wait_for() { # url, seconds, log file
  for _ in $(seq 1 "$2"); do
    if node -e 'fetch(process.argv[1]).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "$1"; then return 0; fi
    sleep 1
  done
  echo "timed out waiting for $1"; cat "$3"; return 1
}

if [ "${SKIP_BUILD:-}" != 1 ]; then
  echo "== build"
  npm run build
fi

echo "== scratch install (production dependencies only) in $SCRATCH"
cp package.json package-lock.json "$SCRATCH/"
cp -r bin dist "$SCRATCH/"
for pkg in tron sdk devnet; do
  mkdir -p "$SCRATCH/packages/$pkg"
  cp -r "packages/$pkg/package.json" "packages/$pkg/dist" "$SCRATCH/packages/$pkg/"
done
(cd "$SCRATCH" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
for dev in tsx vite typescript vitest tronweb; do
  if [ -e "$SCRATCH/node_modules/$dev" ]; then echo "development dependency $dev was installed"; exit 1; fi
done
if [ -e "$SCRATCH/src" ] || [ -e "$SCRATCH/web" ] || ls -d "$SCRATCH"/packages/*/src 2>/dev/null; then
  echo "sources leaked into the scratch dir"; exit 1
fi
for pkg in tron sdk devnet; do
  [ -e "$SCRATCH/node_modules/@stablegate/$pkg/dist/index.js" ] || { echo "@stablegate/$pkg is not linked"; exit 1; }
done

echo "== devnet (compiled)"
DEVNET_PORT=$(free_port)
"$SCRATCH/node_modules/.bin/stablegate-devnet" --port "$DEVNET_PORT" --block-time-ms 500 --solidify-after 2 >"$SCRATCH/devnet.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 60); do grep -q "devnet ready" "$SCRATCH/devnet.log" && break; sleep 0.5; done
READY=$(grep "devnet ready" "$SCRATCH/devnet.log" | sed 's/^devnet ready //')
USDT=$(node -e 'console.log(JSON.parse(process.argv[1]).usdt_contract)' "$READY")

echo "== database $DB"
psql "$ADMIN_URL" -qc "CREATE DATABASE $DB"
DATABASE_URL=$(node -e 'const u=new URL(process.argv[1]);u.pathname="/"+process.argv[2];console.log(u.toString())' "$ADMIN_URL" "$DB")
MNEMONIC="abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
XPUB=$(cd "$SCRATCH" && node --input-type=module -e "
  const { mnemonicToAccountXpub } = await import('@stablegate/tron/hd');
  console.log(mnemonicToAccountXpub(process.argv[1]));" "$MNEMONIC")
API_PORT=$(free_port)
export NODE_ENV=production TRON_NETWORK=nile TRON_NODE_URL="http://127.0.0.1:$DEVNET_PORT" USDT_CONTRACT="$USDT"
export DATABASE_URL ADMIN_PASSWORD="production check password" METRICS_TOKEN="production-check-metrics-token"
export SESSION_SECRET="production-check-session-secret-0123456789" API_KEY_PEPPER="production-check-api-key-pepper-0123456789"
export WALLET_XPUB="$XPUB" HOST=127.0.0.1 PORT="$API_PORT" LOG_LEVEL=warn CONFIRMATIONS=2 DATA_DIR="$SCRATCH/data"

cd "$SCRATCH"
echo "== stablegate migrate"
node bin/stablegate.mjs migrate
echo "== stablegate serve --role api / --role worker"
node bin/stablegate.mjs serve --role api >"$SCRATCH/api.log" 2>&1 &
PIDS+=($!)
PORT=0 node bin/stablegate.mjs serve --role worker >"$SCRATCH/worker.log" 2>&1 &
PIDS+=($!)
wait_for "http://127.0.0.1:$API_PORT/api/v1/health/live" 60 "$SCRATCH/api.log"
grep -q "stablegate ready" "$SCRATCH/api.log"

echo "== merchant and order over HTTP"
node "$ROOT/scripts/production-smoke.mjs" "http://127.0.0.1:$API_PORT"
# Neither process may have loaded tsx or Vite (they are not even installed).
if grep -Ei "tsx|vite" "$SCRATCH/api.log" "$SCRATCH/worker.log"; then echo "unexpected tsx/vite mention"; exit 1; fi
kill -0 "${PIDS[2]}" || { echo "the worker died"; cat "$SCRATCH/worker.log"; exit 1; }
echo "production start OK"
