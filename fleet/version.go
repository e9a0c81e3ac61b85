package fleet

import (
	"fmt"
	"strconv"
	"strings"
)

// DeploymentFormat is the newest deployment record format this node reads.
const DeploymentFormat = 1

// peerVersionError explains a Cellhost-Peer header that differs from this
// node's ("<protocol>.<secret version>"): which side is newer and what to
// do, so that a mixed fleet during an upgrade says what it is.
func peerVersionError(got, want string) error {
	gp, gs, ok1 := parsePeerHeader(got)
	wp, ws, ok2 := parsePeerHeader(want)
	switch {
	case !ok1 || !ok2:
		return fmt.Errorf("peer protocol %q, this node speaks %q", got, want)
	case gp > wp:
		return fmt.Errorf("peer protocol %d is newer than this node's %d: upgrade this node (peer header %q)", gp, wp, got)
	case gp < wp:
		return fmt.Errorf("peer protocol %d is older than this node's %d: the sender runs an older cellhost that this one no longer speaks; upgrade it (peer header %q)", gp, wp, got)
	default:
		return fmt.Errorf("fleet secret version %d, this node's is %d: the nodes read different secrets (are they on the same bucket?)", gs, ws)
	}
}

func parsePeerHeader(h string) (proto, secret int, ok bool) {
	a, b, found := strings.Cut(h, ".")
	if !found {
		return 0, 0, false
	}
	p, err1 := strconv.Atoi(a)
	s, err2 := strconv.Atoi(b)
	return p, s, err1 == nil && err2 == nil && p >= 0 && s >= 0
}
