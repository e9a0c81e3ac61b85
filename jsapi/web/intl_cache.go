package web

import "sync"

// lazyCache builds a value per key once and keeps it: the per-locale
// states of DateTimeFormat and NumberFormat, their pattern tables, and
// the collators.
type lazyCache[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

// get returns the value of k, built by build on the first call (under
// the cache's lock, so at most once).
func (c *lazyCache[K, V]) get(k K, build func() V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.m[k]; ok {
		return v
	}
	if c.m == nil {
		c.m = map[K]V{}
	}
	v := build()
	c.m[k] = v
	return v
}

// boundedCache is a lazyCache for keys that script chooses (a
// DateTimeFormat's options): once it holds max values, new keys are
// built each time and not kept, so script cannot grow it without bound.
type boundedCache[K comparable, V any] struct {
	mu  sync.Mutex
	m   map[K]V
	max int
}

func (c *boundedCache[K, V]) get(k K, build func() V) V {
	c.mu.Lock()
	if v, ok := c.m[k]; ok {
		c.mu.Unlock()
		return v
	}
	c.mu.Unlock()
	v := build()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[K]V{}
	}
	if len(c.m) < c.max {
		c.m[k] = v
	}
	return v
}
