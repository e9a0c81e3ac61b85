package whatwgurl

import "strconv"

// The getters of the URL API (https://url.spec.whatwg.org/#api).

// Href is the serialization of u.
func (u *URL) Href() string { return u.href(false) }

// Protocol is u's scheme followed by ":".
func (u *URL) Protocol() string { return u.scheme + ":" }

// Username is u's username, percent-encoded.
func (u *URL) Username() string { return u.username }

// Password is u's password, percent-encoded.
func (u *URL) Password() string { return u.password }

// Host is u's host and, when not null, ":" and its port ("" for a null host).
func (u *URL) Host() string { return u.hostString() }

// Hostname is u's host ("" for a null host).
func (u *URL) Hostname() string {
	if u.host == nil {
		return ""
	}
	return *u.host
}

// Port is u's port in decimal, or "" when it is null.
func (u *URL) Port() string {
	if u.port < 0 {
		return ""
	}
	return strconv.Itoa(u.port)
}

// Pathname is u's path serialized.
func (u *URL) Pathname() string { return u.pathString() }

// Search is "?" and u's query, or "" when the query is null or empty.
func (u *URL) Search() string {
	if u.query == nil || *u.query == "" {
		return ""
	}
	return "?" + *u.query
}

// Hash is "#" and u's fragment, or "" when the fragment is null or empty.
func (u *URL) Hash() string {
	if u.fragment == nil || *u.fragment == "" {
		return ""
	}
	return "#" + *u.fragment
}

// Query is u's query; ok is false when it is null.
func (u *URL) Query() (q string, ok bool) {
	if u.query == nil {
		return "", false
	}
	return *u.query, true
}

// Origin is the serialization of u's origin ("null" for an opaque origin).
func (u *URL) Origin() string { return u.origin() }
