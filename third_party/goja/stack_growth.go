package goja

// cellhost patch 42: the VM's value stack grows by a quarter of its size
// (at least 1024 slots) when it must grow past 1024 values. Upstream added
// 1024 slots each time, so a stack filled to n values was reallocated and
// copied n/1024 times: quadratic in a spread call's arguments. Measured on
// this loaded 2-core machine (not a controlled comparison): `Math.max(...a)`
// of 2^20 values (patch 30's cap) took 92 s at load 28 before, 6.6 s at
// load 17 after; 2^18 values 3.5 s before, 1.8 s after. A quarter keeps
// the copying linear and leaves at most a quarter of a deep stack unused.
const stackGrowth = 4
