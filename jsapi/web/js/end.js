  return internals;
});
