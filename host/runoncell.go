package host

import (
	"context"
	"encoding/hex"
	"fmt"

	"github.com/cellhost/cellhost/storage"
)

// RunOnCell runs fn on the database of the object class/id without
// running its JavaScript (no instance is constructed), in a turn of its
// own: what fn writes commits at the end of that turn, and RunOnCell
// returns once the commit is durable as every commit is (in the bucket,
// in log mode). An error from fn rolls its writes back. It is how
// `cellhost import` brings another runtime's state in and `cellhost
// export` reads it out.
func (h *Host) RunOnCell(ctx context.Context, class, id string, fn func(db *storage.DB) error) error {
	if !h.hasClass(class) {
		return fmt.Errorf("%w %q", ErrUnknownClass, class)
	}
	c := h.cellFor(class, id)
	ch := make(chan error, 1)
	c.s.post(func() {
		c.unref()
		c.inflight++
		c.deliver("", func() {
			if c.broken != nil {
				err := c.broken
				c.s.reply(c, func() { c.inflight--; ch <- err })
				return
			}
			c.touch()
			err := fn(c.db)
			if err != nil {
				_ = c.db.Rollback()
			} else {
				c.wrote = true
			}
			c.s.reply(c, func() { c.inflight--; ch <- err })
		})
	})
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ReissueID returns the id of class's namespace whose first half is
// foreign's (another runtime's 64-hex id): the id an object imported from
// there gets when its name is not known (the second half of an id is the
// namespace's MAC of the first, which differs between runtimes).
func ReissueID(script, class, foreign string) (string, error) {
	b, err := hex.DecodeString(foreign)
	if err != nil || len(b) != 32 {
		return "", ErrIDFormat
	}
	return hex.EncodeToString(append(b[:16:16], hmac16(idKey(script, class), b[:16])...)), nil
}
