#!/usr/bin/env node
// The cellhost command of the npm package: runs the binary of this
// platform's package (@cellhost/<platform>-<arch>, an optional dependency
// npm installs only where its "os" and "cpu" match), with the arguments,
// standard streams, signals and exit status passed through, as esbuild's
// and workerd's packages do. No Go toolchain is needed.
"use strict";
const { spawn } = require("node:child_process");
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
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
// A signal sent to this process (a supervisor's SIGTERM, not only a
// terminal's Ctrl-C, which reaches both) is passed to the binary, which
// hands its objects over before it exits.
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (err) => {
  console.error(`cellhost: cannot run ${bin}: ${err.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
