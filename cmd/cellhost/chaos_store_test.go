package main

import (
	"context"
	"net/url"

	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/s3store"
)

// openStore opens bucket in this process: with the server's credentials
// passed to s3store (not through the environment, so that TestChaos can
// run beside other tests), or plugins.OpenStore for a file bucket (s nil).
func (s *chaosS3) openStore(bucket string) (plugins.ObjectStore, error) {
	if s == nil {
		return plugins.OpenStore(context.Background(), bucket)
	}
	u, err := url.Parse(bucket)
	if err != nil {
		return nil, err
	}
	cfg, err := s3store.ParseURL(u)
	if err != nil {
		return nil, err
	}
	cfg.AccessKeyID, cfg.SecretAccessKey = s.access, s.secret
	return s3store.Open(context.Background(), cfg)
}
