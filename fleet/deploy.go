package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// Deployment is one application version of a fleet (cellhost deploy): the
// bundled worker and what its wrangler config says about it. Every node
// started without a project runs the newest one.
type Deployment struct {
	// Format is the record's format, absent (0) for format 1, the one this
	// node writes and reads. A node refuses a deployment of a format it
	// does not know (a newer cellhost's), naming it; members it does not
	// know are skipped.
	Format             int             `json:"format,omitempty"`
	ID                 string          `json:"id"`
	Script             string          `json:"script"` // the worker's name: part of every object id
	Entry              string          `json:"entry"`  // the entry module's path when it was bundled (for stack traces)
	Code               string          `json:"code"`   // the bundle
	Bindings           []DeployedClass `json:"bindings"`
	Vars               map[string]any  `json:"vars,omitempty"`
	CompatibilityDate  string          `json:"compatibility_date,omitempty"`
	CompatibilityFlags []string        `json:"compatibility_flags,omitempty"`
	// Extra are the bindings beyond Durable Objects and vars.
	Extra *DeployedBindings `json:"extra_bindings,omitempty"`
}

// DeployedBindings are a deployment's KV, D1, R2 and service bindings.
type DeployedBindings struct {
	KV       []DeployedResource `json:"kv_namespaces,omitempty"`
	D1       []DeployedResource `json:"d1_databases,omitempty"`
	R2       []DeployedBucket   `json:"r2_buckets,omitempty"`
	Services []DeployedService  `json:"services,omitempty"`
}

// DeployedResource is a KV namespace or D1 database: env.<Name> is <ID>.
type DeployedResource struct {
	Name string `json:"name"`
	ID   string `json:"id"`
}

// DeployedBucket is an R2 binding: env.<Name> is bucket <Bucket>.
type DeployedBucket struct {
	Name   string `json:"name"`
	Bucket string `json:"bucket"`
}

// DeployedService is a service binding to one of the worker's own
// entrypoints ("" = its default export).
type DeployedService struct {
	Name       string `json:"name"`
	Entrypoint string `json:"entrypoint,omitempty"`
}

// DeployedClass is a Durable Object binding: env.<Name> is class <Class>.
type DeployedClass struct {
	Name  string `json:"name"`
	Class string `json:"class"`
}

// NewDeploymentID returns an id that sorts after every id made earlier
// (UTC time to the millisecond) and names the code (a hash prefix).
func NewDeploymentID(now time.Time, code string) string {
	sum := sha256.Sum256([]byte(code))
	return now.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(sum[:4])
}

// DecodeDeployment decodes the object at bucketkey.DeploymentKey(id).
func DecodeDeployment(key string, body []byte) (*Deployment, error) {
	var d Deployment
	if err := decodeStrict(body, &d); err != nil {
		return nil, fmt.Errorf("decode %s: %w", key, err)
	}
	if d.Format > DeploymentFormat {
		return nil, fmt.Errorf("decode %s: format %d, written by a newer cellhost (this node reads format %d and older): upgrade this node", key, d.Format, DeploymentFormat)
	}
	if bucketkey.DeploymentKey(d.ID) != key {
		return nil, fmt.Errorf("decode %s: id %q does not match the key", key, d.ID)
	}
	if d.Script == "" || d.Code == "" {
		return nil, fmt.Errorf("decode %s: no script name or no code", key)
	}
	for _, b := range d.Bindings {
		if b.Name == "" || b.Class == "" {
			return nil, fmt.Errorf("decode %s: a binding without a name or class", key)
		}
	}
	return &d, nil
}

// PutDeployment writes d under a new id (If-None-Match: *) and returns it.
func PutDeployment(ctx context.Context, store Store, d *Deployment, now time.Time) (string, error) {
	d.ID = NewDeploymentID(now, d.Code)
	body, err := json.Marshal(d)
	if err != nil {
		return "", err
	}
	key := bucketkey.DeploymentKey(d.ID)
	if _, err := store.Put(ctx, key, body, plugins.PutOptions{IfNoneMatch: true}); err != nil {
		return "", fmt.Errorf("write %s: %w", key, err)
	}
	return d.ID, nil
}

// ErrNoDeployment means the bucket holds no deployment.
var ErrNoDeployment = errors.New("the bucket holds no deployment; run cellhost deploy <dir> --bucket <url> first, or pass a project to serve")

// NewestDeploymentKey returns the key of the newest deployment, or
// ErrNoDeployment.
func NewestDeploymentKey(ctx context.Context, store Store) (string, error) {
	newest, after := "", ""
	for {
		page, err := store.List(ctx, bucketkey.DeploymentsPrefix, after, 0)
		if err != nil {
			return "", fmt.Errorf("list %s: %w", bucketkey.DeploymentsPrefix, err)
		}
		for _, o := range page.Objects {
			if strings.HasSuffix(o.Key, ".json") && o.Key > newest {
				newest = o.Key
			}
		}
		if page.NextStartAfter == "" {
			break
		}
		after = page.NextStartAfter
	}
	if newest == "" {
		return "", ErrNoDeployment
	}
	return newest, nil
}

// ReadDeployment reads and decodes the deployment at key.
func ReadDeployment(ctx context.Context, store Store, key string) (*Deployment, error) {
	body, _, err := store.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return DecodeDeployment(key, body)
}
