#!/usr/bin/env node
// The cellhost command of the npm package: runs the binary of this
// platform's package (@cellhost/<platform>-<arch>, an optional dependency
// npm installs only where its "os" and "cpu" match), with the arguments,
// standard streams and exit status passed through, as esbuild's and
// workerd's packages do. No Go toolchain is needed.
"use strict";
const { spawnSync } = require("node:child_process");
const path = require("node:path");

const pkg = `@cellhost/${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "cellhost.exe" : "cellhost";

let bin = process.env.CELLHOST_BINARY;
if (!bin) {
  try {
    bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
  } catch {
    console.error(
      `cellhost: the package ${pkg} is not installed, so there is no cellhost binary for ${process.platform} ${process.arch}.\n` +
        `Reinstall without --no-optional / --omit=optional (npm install cellhost), or install it yourself (npm install ${pkg}).\n` +
        `Supported: linux on x64 and arm64; elsewhere build it from a clone with Go (go build ./cmd/cellhost) and set CELLHOST_BINARY to it`
    );
    process.exit(1);
  }
}
const r = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (r.error) {
  console.error(`cellhost: cannot run ${bin}: ${r.error.message}`);
  process.exit(1);
}
if (r.signal) {
  process.kill(process.pid, r.signal);
}
process.exit(r.status ?? 1);
