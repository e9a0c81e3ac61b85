// Package s3store is a plugins.ObjectStore on Amazon S3 or an S3-compatible
// server (R2, Tigris, versitygw, ...), registered for "s3://" bucket URLs.
// It is the only package of cellhost that imports the AWS SDK.
//
// # Bucket URL
//
//	s3://BUCKET[/PREFIX][?endpoint=URL&region=NAME&path_style=BOOL&profile=NAME]
//
// Every key K is stored as the object "PREFIX/K" (just "K" without a
// prefix). Each setting comes from the first of these that gives it:
//
//   - endpoint: the URL's endpoint parameter (http or https, e.g.
//     http://127.0.0.1:7070); AWS_ENDPOINT_URL_S3; AWS_ENDPOINT_URL; the
//     endpoint_url of the shared-config profile; else AWS's own endpoint.
//   - region: the URL's region parameter; AWS_REGION; AWS_DEFAULT_REGION;
//     the profile's region; else DefaultRegion (us-east-1).
//   - path-style addressing: the URL's path_style parameter (true or
//     false); else on when an endpoint is configured (from any source
//     above) and off for AWS's endpoints. The AWS SDK reads no environment
//     variable for it.
//   - credentials: Config's AccessKeyID and SecretAccessKey (and
//     SessionToken) when a program sets them (Open; never from a URL); else
//     the environment, through the SDK's default chain:
//     AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN; the
//     shared config and credentials files (AWS_PROFILE, or the URL's profile
//     parameter, selects the profile); web identity; container and instance
//     roles. A URL never carries secrets: user info in it is an error.
//
// The SDK's other environment variables apply as usual (AWS_CA_BUNDLE,
// AWS_MAX_ATTEMPTS, AWS_RETRY_MODE, AWS_REQUEST_CHECKSUM_CALCULATION, ...).
// An unknown or repeated URL parameter is an error.
//
// # Conditional writes
//
// Put with IfNoneMatch sends "If-None-Match: *", Put with IfMatch and Delete
// with an etag send "If-Match". A 412, or a 409 ConditionalRequestConflict,
// is a clean rejection (plugins.ErrPreconditionFailed); a 404 is
// plugins.ErrNotFound. A conditional Delete first sends a HEAD, as some
// servers (versitygw v1.8.0) answer 204 to a conditional delete of a
// missing key: a missing key or another ETag there fails at once, without
// a DELETE. Any other failure of a conditional request may have
// applied: its error wraps ErrAmbiguous and the SDK's error, and the caller
// re-reads and reconciles. Conditional requests are sent exactly once (the
// SDK's retries are off for them: a retry can see its own success as a
// 412); other requests keep the SDK's retries.
//
// Keys are those plugins.CheckKey accepts, less the control characters an
// XML listing cannot carry (all but tab, LF and CR) and U+FFFE and U+FFFF,
// and at most plugins.MaxKeyLen bytes with the prefix.
//
// ETags are S3's, as returned, always in quoted form. S3 derives the ETag of
// a simple upload from the body, so two writes of identical bytes carry
// equal ETags: a caller that compares ETags across writes makes each body
// distinct (a record with an epoch or a counter).
package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/cellhost/cellhost/plugins"
)

func init() {
	plugins.RegisterStore("s3", openURL)
}

const (
	// DefaultRegion is the signing region when no source configures one.
	DefaultRegion = "us-east-1"
	// MaxListLimit is the most objects one List returns (S3's page limit);
	// it is also the page size when limit <= 0.
	MaxListLimit = 1000
	// maxEmptyPages bounds the truncated-but-empty pages List skips.
	maxEmptyPages = 100
)

var (
	// ErrAmbiguous means a conditional write or delete failed in a way that
	// does not say whether it applied (a 5xx, a timeout, a dropped
	// connection, a cancelled context): re-read the key and reconcile; never
	// retry the write blindly. The error also wraps the SDK's error.
	ErrAmbiguous = errors.New("outcome unknown: the conditional write may have applied (re-read and reconcile)")
	// ErrInvalidURL means an s3:// bucket URL is malformed.
	ErrInvalidURL = errors.New("invalid s3 bucket url")
)

// API is the part of the S3 client the store uses. *s3.Client implements
// it; tests pass function-field mocks. The store calls it from any
// goroutine, concurrently.
type API interface {
	GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	HeadObject(ctx context.Context, in *s3.HeadObjectInput, optFns ...func(*s3.Options)) (*s3.HeadObjectOutput, error)
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, optFns ...func(*s3.Options)) (*s3.DeleteObjectOutput, error)
	ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, optFns ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
}

// PathStyle selects how requests address the bucket.
type PathStyle int

const (
	// PathStyleAuto uses path-style addressing when an endpoint is
	// configured, virtual-hosted addressing on AWS's endpoints.
	PathStyleAuto PathStyle = iota
	// PathStyleOn puts the bucket in the path: http://host/bucket/key.
	PathStyleOn
	// PathStyleOff puts the bucket in the host name: http://bucket.host/key.
	PathStyleOff
)

// Config is what a bucket URL says. Empty fields are left to the AWS
// environment (see the package documentation).
type Config struct {
	Bucket    string
	Prefix    string // without leading or trailing "/"; "" for none
	Endpoint  string // "" = from the environment, else AWS
	Region    string // "" = from the environment, else DefaultRegion
	PathStyle PathStyle
	Profile   string // shared-config profile; "" = AWS_PROFILE or default

	// Explicit credentials, for a program that holds them (a test with
	// its own S3 server beside others, an embedding program): with
	// AccessKeyID set they replace the SDK's default chain (environment,
	// shared files, roles) for this store only, leaving the process's
	// environment alone. Both or neither of AccessKeyID and
	// SecretAccessKey; ParseURL never sets them.
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string // optional, with the two above
}

// String leaves the secrets out, should a Config be logged.
func (c Config) String() string {
	redact := func(s string) string {
		if s == "" {
			return ""
		}
		return "REDACTED"
	}
	return fmt.Sprintf("{Bucket:%s Prefix:%s Endpoint:%s Region:%s PathStyle:%d Profile:%s AccessKeyID:%s SecretAccessKey:%s SessionToken:%s}",
		c.Bucket, c.Prefix, c.Endpoint, c.Region, c.PathStyle, c.Profile, c.AccessKeyID, redact(c.SecretAccessKey), redact(c.SessionToken))
}

var bucketPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9.\-_]{1,61}[a-z0-9]$`)

// ParseURL parses an s3:// bucket URL. Its errors wrap ErrInvalidURL.
func ParseURL(u *url.URL) (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf("%w: %s", ErrInvalidURL, fmt.Sprintf(format, args...))
	}
	switch {
	case u.Scheme != "s3":
		return bad("scheme %q, want s3://BUCKET/PREFIX", u.Scheme)
	case u.Opaque != "":
		return bad("want s3://BUCKET/PREFIX, got s3:%s", u.Opaque)
	case u.User != nil:
		return bad("credentials in the url are not supported: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or use a profile")
	case u.Fragment != "":
		return bad("unexpected fragment #%s", u.Fragment)
	case u.Host == "":
		return bad("missing bucket name: want s3://BUCKET/PREFIX")
	case u.Port() != "" || strings.HasSuffix(u.Host, ":"):
		return bad("bucket %q has a port: put the server in the endpoint parameter", u.Host)
	}
	cfg := Config{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}
	if err := checkBucket(cfg.Bucket); err != nil {
		return bad("%v", err)
	}
	if err := checkPrefix(cfg.Prefix); err != nil {
		return bad("%v", err)
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return bad("query: %v", err)
	}
	for name, vals := range q {
		if len(vals) != 1 {
			return bad("parameter %q given %d times", name, len(vals))
		}
		v := vals[0]
		switch name {
		case "endpoint":
			e, err := url.Parse(v)
			if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" || e.User != nil || e.RawQuery != "" || e.Fragment != "" {
				return bad("endpoint %q: want http://HOST[:PORT] or https://HOST[:PORT]", v)
			}
			cfg.Endpoint = v
		case "region":
			if v == "" {
				return bad("empty region")
			}
			cfg.Region = v
		case "path_style":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return bad("path_style %q: want true or false", v)
			}
			cfg.PathStyle = PathStyleOff
			if b {
				cfg.PathStyle = PathStyleOn
			}
		case "profile":
			if v == "" {
				return bad("empty profile")
			}
			cfg.Profile = v
		default:
			return bad("unknown parameter %q (known: endpoint, region, path_style, profile)", name)
		}
	}
	return cfg, nil
}

func checkBucket(b string) error {
	if !bucketPattern.MatchString(b) {
		return fmt.Errorf("bucket name %q: want 3-63 lowercase letters, digits, '.', '-' or '_', starting and ending with a letter or digit", b)
	}
	return nil
}

func checkPrefix(p string) error {
	if p == "" {
		return nil
	}
	if err := plugins.CheckKey(p); err != nil {
		return fmt.Errorf("key prefix %q: %w", p, err)
	}
	return nil
}

func openURL(ctx context.Context, u *url.URL) (plugins.ObjectStore, error) {
	cfg, err := ParseURL(u)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg)
}

// explicitEndpoint reports whether the store talks to a configured
// endpoint (the URL's endpoint, or AWS_ENDPOINT_URL[_S3] as the SDK reads
// them) rather than to AWS.
func explicitEndpoint(cfg Config) bool {
	return cfg.Endpoint != "" || os.Getenv("AWS_ENDPOINT_URL_S3") != "" || os.Getenv("AWS_ENDPOINT_URL") != ""
}

// Open loads the AWS configuration from the environment, overrides it with
// cfg (its credentials too, when set) and returns a store on a new S3
// client. It sends no request.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	var opts []func(*config.LoadOptions) error
	switch {
	case cfg.AccessKeyID != "" && cfg.SecretAccessKey != "":
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(cfg.AccessKeyID, cfg.SecretAccessKey, cfg.SessionToken)))
	case cfg.AccessKeyID != "" || cfg.SecretAccessKey != "" || cfg.SessionToken != "":
		return nil, errors.New("open s3 store: explicit credentials need both AccessKeyID and SecretAccessKey (or neither, for the environment's)")
	}
	if cfg.Region != "" {
		opts = append(opts, config.WithRegion(cfg.Region))
	}
	if cfg.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(cfg.Profile))
	}
	if explicitEndpoint(cfg) {
		// An S3-compatible server of our own: credentials never come from
		// the EC2 instance metadata service (169.254.169.254), which a
		// missing key would otherwise make the SDK ask.
		opts = append(opts, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("load aws config: %w", err)
	}
	if awsCfg.Region == "" {
		awsCfg.Region = DefaultRegion
	}
	server := &serverHeader{}
	client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		// The SDK's standard retryer, without its client-side retry
		// quota and with a short back-off: during an outage of the
		// server the quota empties (retries then fail at once, "retry
		// quota exceeded", until successes refill it), and its back-off
		// of up to 20 s delays the first request after the server
		// returns by as much; both held a fleet's recovery after an S3
		// outage far past a lease TTL (issue 31). The callers retry
		// with their own deadlines (uploads, lease renewals).
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
			so.RateLimiter = ratelimit.None
			so.MaxBackoff = sdkMaxBackoff
		})
		o.APIOptions = append(o.APIOptions, server.capture)
		// o.BaseEndpoint already holds an endpoint from the environment.
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		switch cfg.PathStyle {
		case PathStyleOn:
			o.UsePathStyle = true
		case PathStyleOff:
			o.UsePathStyle = false
		default:
			o.UsePathStyle = o.BaseEndpoint != nil
		}
	})
	st, err := New(client, cfg.Bucket, cfg.Prefix)
	if err != nil {
		return nil, err
	}
	st.server = server
	return st, nil
}

// sdkMaxBackoff caps the SDK retryer's back-off between attempts.
const sdkMaxBackoff = 200 * time.Millisecond

// Store is an object store on one bucket and key prefix. Its methods are
// safe for concurrent use.
type Store struct {
	api    API
	bucket string
	prefix string // "" or ends in "/"
	closed atomic.Bool
	server *serverHeader // Open's: the server's Server header; nil with New
}

// New returns a store on bucket that keeps every key under prefix
// (without leading or trailing "/"; "" for none) and calls api. It has no
// side effects.
func New(api API, bucket, prefix string) (*Store, error) {
	if api == nil {
		return nil, errors.New("new s3 store: api is nil")
	}
	if err := checkBucket(bucket); err != nil {
		return nil, fmt.Errorf("new s3 store: %w", err)
	}
	if err := checkPrefix(prefix); err != nil {
		return nil, fmt.Errorf("new s3 store: %w", err)
	}
	if prefix != "" {
		prefix += "/"
	}
	return &Store{api: api, bucket: bucket, prefix: prefix}, nil
}

// objectKey checks the store's state and key and returns the object key.
func (s *Store) objectKey(ctx context.Context, key string) (string, error) {
	if s.closed.Load() {
		return "", plugins.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := plugins.CheckKey(key); err != nil {
		return "", err
	}
	if err := checkXMLChars(key); err != nil {
		return "", err
	}
	if full := s.prefix + key; len(full) > plugins.MaxKeyLen {
		return "", fmt.Errorf("%w: %d bytes with the key prefix %q, more than %d", plugins.ErrInvalidKey, len(full), s.prefix, plugins.MaxKeyLen)
	}
	return s.prefix + key, nil
}

// Get implements plugins.ObjectStore.
func (s *Store) Get(ctx context.Context, key string) ([]byte, string, error) {
	k, err := s.objectKey(ctx, key)
	if err != nil {
		return nil, "", fmt.Errorf("get object %q: %w", key, err)
	}
	out, err := s.api.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &k})
	if err != nil {
		return nil, "", s.fail("get object", key, false, err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, "", fmt.Errorf("get object %q: read body: %w", key, err)
	}
	etag := quoteETag(aws.ToString(out.ETag))
	if etag == "" {
		return nil, "", fmt.Errorf("get object %q: response has no ETag", key)
	}
	return body, etag, nil
}

// Head implements plugins.ObjectStore.
func (s *Store) Head(ctx context.Context, key string) (string, error) {
	k, err := s.objectKey(ctx, key)
	if err != nil {
		return "", fmt.Errorf("head object %q: %w", key, err)
	}
	out, err := s.api.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &k})
	if err != nil {
		return "", s.fail("head object", key, false, err)
	}
	etag := quoteETag(aws.ToString(out.ETag))
	if etag == "" {
		return "", fmt.Errorf("head object %q: response has no ETag", key)
	}
	return etag, nil
}

// Put implements plugins.ObjectStore.
func (s *Store) Put(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
	k, err := s.objectKey(ctx, key)
	if err != nil {
		return "", fmt.Errorf("put object %q: %w", key, err)
	}
	if opts.IfNoneMatch && opts.IfMatch != "" {
		return "", fmt.Errorf("put object %q: IfNoneMatch and IfMatch are mutually exclusive", key)
	}
	in := &s3.PutObjectInput{
		Bucket:        &s.bucket,
		Key:           &k,
		Body:          bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))),
	}
	var optFns []func(*s3.Options)
	conditional := opts.IfNoneMatch || opts.IfMatch != ""
	if opts.IfNoneMatch {
		in.IfNoneMatch = aws.String("*")
	}
	if opts.IfMatch != "" {
		in.IfMatch = aws.String(opts.IfMatch)
	}
	if conditional {
		optFns = append(optFns, sendOnce)
	}
	out, err := s.api.PutObject(ctx, in, optFns...)
	if err != nil {
		return "", s.fail("put object", key, conditional, err)
	}
	etag := quoteETag(aws.ToString(out.ETag))
	if etag == "" {
		return "", fmt.Errorf("put object %q: the write applied but the response has no ETag", key)
	}
	return etag, nil
}

// Delete implements plugins.ObjectStore.
func (s *Store) Delete(ctx context.Context, key string, ifMatch string) error {
	k, err := s.objectKey(ctx, key)
	if err != nil {
		return fmt.Errorf("delete object %q: %w", key, err)
	}
	in := &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &k}
	var optFns []func(*s3.Options)
	conditional := ifMatch != ""
	if conditional {
		// Some servers (versitygw v1.8.0) answer 204 to a conditional
		// delete of a missing key, where AWS answers 404: look first.
		out, err := s.api.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &k})
		if err != nil {
			return s.fail("delete object", key, false, err)
		}
		if quoteETag(aws.ToString(out.ETag)) != quoteETag(ifMatch) {
			return fmt.Errorf("delete object %q: %w", key, plugins.ErrPreconditionFailed)
		}
		in.IfMatch = aws.String(ifMatch)
		optFns = append(optFns, sendOnce)
	}
	if _, err := s.api.DeleteObject(ctx, in, optFns...); err != nil {
		err = s.fail("delete object", key, conditional, err)
		if !conditional && errors.Is(err, plugins.ErrNotFound) {
			return nil // some servers answer 404 for a missing key
		}
		return err
	}
	return nil
}

// List implements plugins.ObjectStore. A page holds at most MaxListLimit
// objects.
func (s *Store) List(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error) {
	if s.closed.Load() {
		return plugins.ListPage{}, fmt.Errorf("list objects: %w", plugins.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return plugins.ListPage{}, fmt.Errorf("list objects: %w", err)
	}
	if limit <= 0 || limit > MaxListLimit {
		limit = MaxListLimit
	}
	in := &s3.ListObjectsV2Input{
		Bucket:  &s.bucket,
		Prefix:  aws.String(s.prefix + prefix),
		MaxKeys: aws.Int32(int32(limit)),
	}
	if startAfter != "" {
		in.StartAfter = aws.String(s.prefix + startAfter)
	}
	var page plugins.ListPage
	for range maxEmptyPages {
		out, err := s.api.ListObjectsV2(ctx, in)
		if err != nil {
			return plugins.ListPage{}, fmt.Errorf("list objects %q: %w", prefix, s.translate(err))
		}
		for _, o := range out.Contents {
			k := aws.ToString(o.Key)
			if !strings.HasPrefix(k, s.prefix+prefix) {
				return plugins.ListPage{}, fmt.Errorf("list objects %q: server returned key %q outside the prefix", prefix, k)
			}
			page.Objects = append(page.Objects, plugins.Object{
				Key:  k[len(s.prefix):],
				ETag: quoteETag(aws.ToString(o.ETag)),
				Size: aws.ToInt64(o.Size),
			})
		}
		if len(page.Objects) > limit {
			return plugins.ListPage{}, fmt.Errorf("list objects %q: server returned %d keys, more than the %d asked", prefix, len(page.Objects), limit)
		}
		if !aws.ToBool(out.IsTruncated) {
			return page, nil
		}
		if n := len(page.Objects); n > 0 {
			page.NextStartAfter = page.Objects[n-1].Key
			return page, nil
		}
		if aws.ToString(out.NextContinuationToken) == "" {
			return plugins.ListPage{}, fmt.Errorf("list objects %q: truncated page without a continuation token", prefix)
		}
		in.ContinuationToken = out.NextContinuationToken
	}
	return plugins.ListPage{}, fmt.Errorf("list objects %q: %d empty truncated pages in a row", prefix, maxEmptyPages)
}

// Close implements plugins.ObjectStore. Later calls fail with
// plugins.ErrClosed.
func (s *Store) Close() error {
	s.closed.Store(true)
	return nil
}

// sendOnce turns the SDK's retries off for one request.
func sendOnce(o *s3.Options) {
	o.Retryer = aws.NopRetryer{}
	o.RetryMaxAttempts = 0
}

// httpStatusError is an SDK error that carries the HTTP status.
type httpStatusError interface {
	error
	HTTPStatusCode() int
}

// outcome is what an S3 error means to the store.
type outcome int

const (
	failed       outcome = iota // anything else
	notFound                    // 404 on the key
	rejected                    // 412, or 409 ConditionalRequestConflict
	noSuchBucket                // 404 NoSuchBucket
)

func classify(err error) outcome {
	var code string
	if ae, ok := errors.AsType[smithy.APIError](err); ok {
		code = ae.ErrorCode()
	}
	var status int
	if re, ok := errors.AsType[httpStatusError](err); ok {
		status = re.HTTPStatusCode()
	}
	switch {
	case code == "NoSuchBucket":
		return noSuchBucket
	case status == http.StatusPreconditionFailed || code == "PreconditionFailed":
		return rejected
	case status == http.StatusConflict && code == "ConditionalRequestConflict":
		return rejected
	case status == http.StatusNotFound || code == "NoSuchKey" || code == "NotFound":
		return notFound
	}
	return failed
}

// translate maps an S3 error of a read or listing to the plugins errors.
func (s *Store) translate(err error) error {
	switch classify(err) {
	case notFound:
		return plugins.ErrNotFound
	case rejected:
		return plugins.ErrPreconditionFailed
	case noSuchBucket:
		return fmt.Errorf("bucket %q does not exist: %w", s.bucket, err)
	}
	return err
}

// fail returns the error of a failed request on key: a clean rejection or a
// missing key as the plugins sentinels; anything else on a conditional
// write wrapped in ErrAmbiguous.
func (s *Store) fail(verb, key string, conditional bool, err error) error {
	c := classify(err)
	switch {
	case c == rejected && conditional:
		return fmt.Errorf("%s %q: %w", verb, key, plugins.ErrPreconditionFailed)
	case c == notFound:
		return fmt.Errorf("%s %q: %w", verb, key, plugins.ErrNotFound)
	case conditional:
		if c == noSuchBucket {
			err = fmt.Errorf("bucket %q does not exist: %w", s.bucket, err)
		}
		return fmt.Errorf("%s %q: %w: %w", verb, key, ErrAmbiguous, err)
	}
	return fmt.Errorf("%s %q: %w", verb, key, s.translate(err))
}

// checkXMLChars rejects the characters that XML 1.0, and so an S3
// listing, cannot carry: control characters other than tab, LF and CR, and
// U+FFFE and U+FFFF. (Listing with encoding-type=url would carry them, but
// S3-compatible servers differ in how, or whether, they encode.)
func checkXMLChars(key string) error {
	for _, r := range key {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0xFFFE || r == 0xFFFF {
			return fmt.Errorf("%w: character %U cannot appear in an S3 listing", plugins.ErrInvalidKey, r)
		}
	}
	return nil
}

// quoteETag returns etag in its quoted form ("abc" for abc), so that
// headers and listings agree whichever form a server uses.
func quoteETag(etag string) string {
	if etag == "" || strings.HasPrefix(etag, `"`) || strings.HasPrefix(etag, `W/"`) {
		return etag
	}
	return `"` + etag + `"`
}

var _ plugins.ObjectStore = (*Store)(nil)
var _ API = (*s3.Client)(nil)
