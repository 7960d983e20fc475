#!/usr/bin/env bash
# deps.sh — installs the Debian 12 packages Strata needs to build, run and test,
# and only those that are missing (apt-get runs only when something is missing).
# Usage: scripts/deps.sh [run|test|bench]
set -euo pipefail
mode=${1:-test}

pkgs=(gcc make cmake pkg-config git libpg-query-dev libprotobuf-c-dev libzstd-dev libssl-dev
      libcurl4-openssl-dev libjansson-dev liburing-dev
      libpq-dev postgresql-client-15 tzdata ca-certificates)
if [[ $mode == test || $mode == bench ]]; then
  pkgs+=(libcmocka-dev postgresql-15 python3 python3-psycopg2 python3-psycopg python3-sqlalchemy
         libpostgresql-jdbc-java default-jdk-headless nodejs npm clang libclang-rt-14-dev valgrind
         etcd-server openssl libtsan2)
fi
if [[ $mode == bench ]]; then
  pkgs+=(rocksdb-tools linux-perf time)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The JDK may already be present outside dpkg (e.g. a preinstalled Java 17).
if [[ " ${missing[*]} " == *" default-jdk-headless "* ]] && command -v javac >/dev/null 2>&1; then
  missing=("${missing[@]/default-jdk-headless/}")
fi
# Likewise node/npm installed from elsewhere.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  missing=("${missing[@]/nodejs/}"); missing=("${missing[@]/npm/}")
fi
real=()
for p in "${missing[@]}"; do [[ -n $p ]] && real+=("$p"); done
if ((${#real[@]})); then
  echo "deps: installing ${real[*]}"
  if [[ $(id -u) != 0 ]]; then
    echo "deps: need root to apt-get install ${real[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${real[@]}" >/dev/null
fi
