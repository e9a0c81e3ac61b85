// A second module of the self-test worker, imported by its module name.
export const twice = (n) => n * 2;
