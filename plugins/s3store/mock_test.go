package s3store_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/s3store"
)

// mockAPI is an s3store.API whose calls are function fields; a nil field
// fails the test when called.
type mockAPI struct {
	t            *testing.T
	GetObjectFn  func(context.Context, *s3.GetObjectInput, ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	HeadObjectFn func(context.Context, *s3.HeadObjectInput, ...func(*s3.Options)) (*s3.HeadObjectOutput, error)
	PutObjectFn  func(context.Context, *s3.PutObjectInput, ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	DeleteFn     func(context.Context, *s3.DeleteObjectInput, ...func(*s3.Options)) (*s3.DeleteObjectOutput, error)
	ListFn       func(context.Context, *s3.ListObjectsV2Input, ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
}

func (m *mockAPI) unexpected(op string) {
	m.t.Helper()
	m.t.Fatalf("unexpected call of %s", op)
}

func (m *mockAPI) GetObject(ctx context.Context, in *s3.GetObjectInput, o ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	if m.GetObjectFn == nil {
		m.unexpected("GetObject")
	}
	return m.GetObjectFn(ctx, in, o...)
}

func (m *mockAPI) HeadObject(ctx context.Context, in *s3.HeadObjectInput, o ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	if m.HeadObjectFn == nil {
		m.unexpected("HeadObject")
	}
	return m.HeadObjectFn(ctx, in, o...)
}

func (m *mockAPI) PutObject(ctx context.Context, in *s3.PutObjectInput, o ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	if m.PutObjectFn == nil {
		m.unexpected("PutObject")
	}
	return m.PutObjectFn(ctx, in, o...)
}

func (m *mockAPI) DeleteObject(ctx context.Context, in *s3.DeleteObjectInput, o ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	if m.DeleteFn == nil {
		m.unexpected("DeleteObject")
	}
	return m.DeleteFn(ctx, in, o...)
}

func (m *mockAPI) ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, o ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	if m.ListFn == nil {
		m.unexpected("ListObjectsV2")
	}
	return m.ListFn(ctx, in, o...)
}

// apiError builds the error the SDK returns for an HTTP error response.
func apiError(op string, status int, apiErr error) error {
	return &smithy.OperationError{
		ServiceID:     "S3",
		OperationName: op,
		Err: &awshttp.ResponseError{
			ResponseError: &smithyhttp.ResponseError{
				Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
				Err:      apiErr,
			},
			RequestID: "MOCKREQUEST",
		},
	}
}

func generic(code string) error {
	return &smithy.GenericAPIError{Code: code, Message: code + " (mock)"}
}

// retriesOff reports whether optFns turn the SDK's retries off.
func retriesOff(optFns []func(*s3.Options)) bool {
	var o s3.Options
	for _, fn := range optFns {
		fn(&o)
	}
	_, ok := o.Retryer.(aws.NopRetryer)
	return ok
}

func newMockStore(t *testing.T, m *mockAPI) *s3store.Store {
	t.Helper()
	m.t = t
	s, err := s3store.New(m, "bkt", "pre/fix")
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	return s
}

func TestStore_PutConditional(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		opts    plugins.PutOptions
		err     error
		want    error // nil: ErrAmbiguous wrapping err
		notWant error
	}{
		{"412IfNoneMatch", plugins.PutOptions{IfNoneMatch: true}, apiError("PutObject", 412, generic("PreconditionFailed")), plugins.ErrPreconditionFailed, s3store.ErrAmbiguous},
		{"412IfMatch", plugins.PutOptions{IfMatch: `"e1"`}, apiError("PutObject", 412, generic("PreconditionFailed")), plugins.ErrPreconditionFailed, s3store.ErrAmbiguous},
		{"409ConditionalRequestConflict", plugins.PutOptions{IfNoneMatch: true}, apiError("PutObject", 409, generic("ConditionalRequestConflict")), plugins.ErrPreconditionFailed, s3store.ErrAmbiguous},
		{"404IfMatch", plugins.PutOptions{IfMatch: `"e1"`}, apiError("PutObject", 404, generic("NoSuchKey")), plugins.ErrNotFound, s3store.ErrAmbiguous},
		{"500IsAmbiguous", plugins.PutOptions{IfMatch: `"e1"`}, apiError("PutObject", 500, generic("InternalError")), nil, plugins.ErrPreconditionFailed},
		{"503IsAmbiguous", plugins.PutOptions{IfNoneMatch: true}, apiError("PutObject", 503, generic("SlowDown")), nil, plugins.ErrPreconditionFailed},
		{"OtherConflictIsAmbiguous", plugins.PutOptions{IfNoneMatch: true}, apiError("PutObject", 409, generic("OperationAborted")), nil, plugins.ErrPreconditionFailed},
		{"NoSuchBucketIsAmbiguous", plugins.PutOptions{IfNoneMatch: true}, apiError("PutObject", 404, generic("NoSuchBucket")), nil, plugins.ErrNotFound},
		{"TimeoutIsAmbiguous", plugins.PutOptions{IfNoneMatch: true}, &smithy.OperationError{ServiceID: "S3", OperationName: "PutObject", Err: context.DeadlineExceeded}, nil, plugins.ErrPreconditionFailed},
		{"ConnectionResetIsAmbiguous", plugins.PutOptions{IfMatch: `"e1"`}, &smithy.OperationError{ServiceID: "S3", OperationName: "PutObject", Err: io.ErrUnexpectedEOF}, nil, plugins.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			s := newMockStore(t, &mockAPI{
				PutObjectFn: func(_ context.Context, in *s3.PutObjectInput, o ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
					calls++
					if got := aws.ToString(in.Key); got != "pre/fix/own.json" {
						t.Errorf("PutObject key = %q, want %q", got, "pre/fix/own.json")
					}
					if tt.opts.IfNoneMatch && aws.ToString(in.IfNoneMatch) != "*" {
						t.Errorf("PutObject IfNoneMatch = %v, want *", in.IfNoneMatch)
					}
					if aws.ToString(in.IfMatch) != tt.opts.IfMatch {
						t.Errorf("PutObject IfMatch = %q, want %q", aws.ToString(in.IfMatch), tt.opts.IfMatch)
					}
					if !retriesOff(o) {
						t.Errorf("PutObject: a conditional write is sent with the SDK's retries on")
					}
					return nil, tt.err
				},
			})
			_, err := s.Put(ctx, "own.json", []byte("{}"), tt.opts)
			if calls != 1 {
				t.Errorf("PutObject called %d times, want 1", calls)
			}
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Errorf("Put() error = %v, want %v", err, tt.want)
				}
			} else {
				if !errors.Is(err, s3store.ErrAmbiguous) || !errors.Is(err, tt.err) {
					t.Errorf("Put() error = %v, want ErrAmbiguous wrapping %v", err, tt.err)
				}
				if err != nil && !strings.Contains(err.Error(), "may have applied") {
					t.Errorf("Put() error = %q, want it to say the write may have applied", err)
				}
			}
			if errors.Is(err, tt.notWant) {
				t.Errorf("Put() error = %v, must not be %v", err, tt.notWant)
			}
		})
	}
}

func TestStore_PutUnconditional(t *testing.T) {
	ctx := context.Background()
	t.Run("Success", func(t *testing.T) {
		s := newMockStore(t, &mockAPI{
			PutObjectFn: func(_ context.Context, in *s3.PutObjectInput, o ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
				if in.IfMatch != nil || in.IfNoneMatch != nil {
					t.Errorf("unconditional PutObject has If-Match %v, If-None-Match %v", in.IfMatch, in.IfNoneMatch)
				}
				if retriesOff(o) {
					t.Errorf("unconditional PutObject has the SDK's retries off")
				}
				body, _ := io.ReadAll(in.Body)
				if string(body) != "hello" || aws.ToInt64(in.ContentLength) != 5 {
					t.Errorf("PutObject body = %q, length %d", body, aws.ToInt64(in.ContentLength))
				}
				return &s3.PutObjectOutput{ETag: aws.String("abc")}, nil
			},
		})
		etag, err := s.Put(ctx, "k", []byte("hello"), plugins.PutOptions{})
		if err != nil || etag != `"abc"` {
			t.Errorf("Put() = %q, %v; want the quoted etag %q", etag, err, `"abc"`)
		}
	})
	t.Run("500IsNotAmbiguous", func(t *testing.T) {
		sdkErr := apiError("PutObject", 500, generic("InternalError"))
		s := newMockStore(t, &mockAPI{
			PutObjectFn: func(context.Context, *s3.PutObjectInput, ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
				return nil, sdkErr
			},
		})
		_, err := s.Put(ctx, "k", nil, plugins.PutOptions{})
		if !errors.Is(err, sdkErr) || errors.Is(err, s3store.ErrAmbiguous) {
			t.Errorf("Put() error = %v, want the SDK error, not ErrAmbiguous", err)
		}
	})
	t.Run("NoETag", func(t *testing.T) {
		s := newMockStore(t, &mockAPI{
			PutObjectFn: func(context.Context, *s3.PutObjectInput, ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
				return &s3.PutObjectOutput{}, nil
			},
		})
		if _, err := s.Put(ctx, "k", nil, plugins.PutOptions{}); err == nil {
			t.Errorf("Put() with no ETag in the response = nil, want an error")
		}
	})
}

func TestStore_Get(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"404NoSuchKey", apiError("GetObject", 404, &types.NoSuchKey{}), plugins.ErrNotFound},
		{"404", apiError("GetObject", 404, generic("NotFound")), plugins.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newMockStore(t, &mockAPI{
				GetObjectFn: func(_ context.Context, in *s3.GetObjectInput, _ ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
					if aws.ToString(in.Bucket) != "bkt" || aws.ToString(in.Key) != "pre/fix/a/b" {
						t.Errorf("GetObject(%q, %q), want (bkt, pre/fix/a/b)", aws.ToString(in.Bucket), aws.ToString(in.Key))
					}
					return nil, tt.err
				},
			})
			if _, _, err := s.Get(ctx, "a/b"); !errors.Is(err, tt.want) {
				t.Errorf("Get() error = %v, want %v", err, tt.want)
			}
		})
	}
	t.Run("ErrNoSuchBucket", func(t *testing.T) {
		s := newMockStore(t, &mockAPI{
			GetObjectFn: func(context.Context, *s3.GetObjectInput, ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
				return nil, apiError("GetObject", 404, &types.NoSuchBucket{})
			},
		})
		_, _, err := s.Get(ctx, "k")
		if err == nil || errors.Is(err, plugins.ErrNotFound) || !strings.Contains(err.Error(), `bucket "bkt" does not exist`) {
			t.Errorf("Get() error = %v, want a bucket error that is not ErrNotFound", err)
		}
	})
	t.Run("Success", func(t *testing.T) {
		s := newMockStore(t, &mockAPI{
			GetObjectFn: func(context.Context, *s3.GetObjectInput, ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
				return &s3.GetObjectOutput{Body: io.NopCloser(strings.NewReader("body")), ETag: aws.String(`"e1"`)}, nil
			},
		})
		body, etag, err := s.Get(ctx, "k")
		if err != nil || string(body) != "body" || etag != `"e1"` {
			t.Errorf("Get() = %q, %q, %v; want body, \"e1\"", body, etag, err)
		}
	})
}

func TestStore_Head(t *testing.T) {
	s := newMockStore(t, &mockAPI{
		HeadObjectFn: func(context.Context, *s3.HeadObjectInput, ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
			return nil, apiError("HeadObject", 404, &types.NotFound{})
		},
	})
	if _, err := s.Head(context.Background(), "k"); !errors.Is(err, plugins.ErrNotFound) {
		t.Errorf("Head() error = %v, want ErrNotFound", err)
	}
}

func TestStore_Delete(t *testing.T) {
	ctx := context.Background()
	head := func(etag string, err error) func(context.Context, *s3.HeadObjectInput, ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
		return func(context.Context, *s3.HeadObjectInput, ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
			if err != nil {
				return nil, err
			}
			return &s3.HeadObjectOutput{ETag: aws.String(etag)}, nil
		}
	}
	tests := []struct {
		name      string
		head      func(context.Context, *s3.HeadObjectInput, ...func(*s3.Options)) (*s3.HeadObjectOutput, error)
		deleteErr error // the DeleteObject answer; unused when head decides
		wantCalls int   // DeleteObject calls
		want      error // nil: success; ErrAmbiguous checked by name
	}{
		{"Applies", head(`"e1"`, nil), nil, 1, nil},
		{"MissingAtHead", head("", apiError("HeadObject", 404, &types.NotFound{})), nil, 0, plugins.ErrNotFound},
		{"OtherETagAtHead", head(`"e2"`, nil), nil, 0, plugins.ErrPreconditionFailed},
		{"412", head(`"e1"`, nil), apiError("DeleteObject", 412, generic("PreconditionFailed")), 1, plugins.ErrPreconditionFailed},
		{"409ConditionalRequestConflict", head(`"e1"`, nil), apiError("DeleteObject", 409, generic("ConditionalRequestConflict")), 1, plugins.ErrPreconditionFailed},
		{"404", head(`"e1"`, nil), apiError("DeleteObject", 404, &types.NoSuchKey{}), 1, plugins.ErrNotFound},
		{"500IsAmbiguous", head(`"e1"`, nil), apiError("DeleteObject", 500, generic("InternalError")), 1, s3store.ErrAmbiguous},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			s := newMockStore(t, &mockAPI{
				HeadObjectFn: tt.head,
				DeleteFn: func(_ context.Context, in *s3.DeleteObjectInput, o ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
					calls++
					if aws.ToString(in.IfMatch) != `"e1"` || aws.ToString(in.Key) != "pre/fix/k" {
						t.Errorf("DeleteObject(%q, If-Match %q), want (pre/fix/k, \"e1\")", aws.ToString(in.Key), aws.ToString(in.IfMatch))
					}
					if !retriesOff(o) {
						t.Errorf("DeleteObject: a conditional delete is sent with the SDK's retries on")
					}
					return &s3.DeleteObjectOutput{}, tt.deleteErr
				},
			})
			err := s.Delete(ctx, "k", `"e1"`)
			if calls != tt.wantCalls {
				t.Errorf("DeleteObject called %d times, want %d", calls, tt.wantCalls)
			}
			if (tt.want == nil && err != nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("Delete() error = %v, want %v", err, tt.want)
			}
			if tt.want != s3store.ErrAmbiguous && errors.Is(err, s3store.ErrAmbiguous) {
				t.Errorf("Delete() error = %v, must not be ambiguous", err)
			}
		})
	}
	t.Run("UnconditionalMissing", func(t *testing.T) {
		s := newMockStore(t, &mockAPI{
			DeleteFn: func(_ context.Context, in *s3.DeleteObjectInput, o ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
				if in.IfMatch != nil || retriesOff(o) {
					t.Errorf("unconditional DeleteObject has If-Match %v or no retries", in.IfMatch)
				}
				return nil, apiError("DeleteObject", 404, &types.NoSuchKey{})
			},
		})
		if err := s.Delete(ctx, "k", ""); err != nil {
			t.Errorf("Delete() of a missing key = %v, want nil", err)
		}
	})
}

func TestStore_List(t *testing.T) {
	ctx := context.Background()
	obj := func(k string) types.Object {
		return types.Object{Key: aws.String("pre/fix/" + k), ETag: aws.String(`"` + k + `"`), Size: aws.Int64(int64(len(k)))}
	}
	t.Run("Page", func(t *testing.T) {
		s := newMockStore(t, &mockAPI{
			ListFn: func(_ context.Context, in *s3.ListObjectsV2Input, _ ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
				if aws.ToString(in.Prefix) != "pre/fix/a/" || aws.ToString(in.StartAfter) != "pre/fix/a/0" || aws.ToInt32(in.MaxKeys) != 2 {
					t.Errorf("ListObjectsV2(prefix %q, start after %q, max %d)", aws.ToString(in.Prefix), aws.ToString(in.StartAfter), aws.ToInt32(in.MaxKeys))
				}
				return &s3.ListObjectsV2Output{Contents: []types.Object{obj("a/1"), obj("a/2")}, IsTruncated: aws.Bool(true), NextContinuationToken: aws.String("tok")}, nil
			},
		})
		page, err := s.List(ctx, "a/", "a/0", 2)
		if err != nil {
			t.Fatal(err)
		}
		want := []plugins.Object{{Key: "a/1", ETag: `"a/1"`, Size: 3}, {Key: "a/2", ETag: `"a/2"`, Size: 3}}
		if len(page.Objects) != 2 || page.Objects[0] != want[0] || page.Objects[1] != want[1] || page.NextStartAfter != "a/2" {
			t.Errorf("List() = %+v, want %+v and NextStartAfter a/2", page, want)
		}
	})
	t.Run("SkipsEmptyTruncatedPages", func(t *testing.T) {
		calls := 0
		s := newMockStore(t, &mockAPI{
			ListFn: func(_ context.Context, in *s3.ListObjectsV2Input, _ ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
				calls++
				if calls == 1 {
					return &s3.ListObjectsV2Output{IsTruncated: aws.Bool(true), NextContinuationToken: aws.String("tok")}, nil
				}
				if aws.ToString(in.ContinuationToken) != "tok" {
					t.Errorf("second ListObjectsV2 continuation token = %q, want tok", aws.ToString(in.ContinuationToken))
				}
				return &s3.ListObjectsV2Output{Contents: []types.Object{obj("z")}, IsTruncated: aws.Bool(false)}, nil
			},
		})
		page, err := s.List(ctx, "", "", 0)
		if err != nil || len(page.Objects) != 1 || page.Objects[0].Key != "z" || page.NextStartAfter != "" {
			t.Errorf("List() = %+v, %v; want [z], complete", page, err)
		}
	})
	t.Run("KeyOutsidePrefix", func(t *testing.T) {
		s := newMockStore(t, &mockAPI{
			ListFn: func(context.Context, *s3.ListObjectsV2Input, ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
				return &s3.ListObjectsV2Output{Contents: []types.Object{{Key: aws.String("elsewhere")}}}, nil
			},
		})
		if _, err := s.List(ctx, "", "", 0); err == nil {
			t.Errorf("List() with a key outside the prefix = nil, want an error")
		}
	})
}

func TestStore_ErrInvalidKey(t *testing.T) {
	s := newMockStore(t, &mockAPI{})
	ctx := context.Background()
	long := strings.Repeat("x", plugins.MaxKeyLen-len("pre/fix/")+1)
	for _, key := range []string{"", "/a", "a//b", "a/../b", "a/", "ctl\x01", "bom\uffff", long} {
		if _, err := s.Put(ctx, key, nil, plugins.PutOptions{}); !errors.Is(err, plugins.ErrInvalidKey) {
			t.Errorf("Put(%.20q) error = %v, want ErrInvalidKey", key, err)
		}
		if _, _, err := s.Get(ctx, key); !errors.Is(err, plugins.ErrInvalidKey) {
			t.Errorf("Get(%.20q) error = %v, want ErrInvalidKey", key, err)
		}
	}
	if _, err := s.Put(ctx, "k", nil, plugins.PutOptions{IfNoneMatch: true, IfMatch: `"x"`}); err == nil {
		t.Errorf("Put(IfNoneMatch and IfMatch) = nil, want an error")
	}
}

func TestStore_Close(t *testing.T) {
	s := newMockStore(t, &mockAPI{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, _, err := s.Get(ctx, "k"); !errors.Is(err, plugins.ErrClosed) {
		t.Errorf("Get() after Close error = %v, want ErrClosed", err)
	}
	if _, err := s.Put(ctx, "k", nil, plugins.PutOptions{IfNoneMatch: true}); !errors.Is(err, plugins.ErrClosed) {
		t.Errorf("Put() after Close error = %v, want ErrClosed", err)
	}
	if _, err := s.List(ctx, "", "", 0); !errors.Is(err, plugins.ErrClosed) {
		t.Errorf("List() after Close error = %v, want ErrClosed", err)
	}
}

// TestOpen_HTTP runs the real SDK client against an httptest server that
// answers 500 and records requests: the URL's endpoint, path-style
// addressing and prefix reach the wire, the conditional headers are sent,
// and a conditional write is sent exactly once while an unconditional one
// is retried.
func TestOpen_HTTP(t *testing.T) {
	var (
		mu   sync.Mutex
		reqs []*http.Request
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		reqs = append(reqs, r)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>mock</Message></Error>`)
	}))
	defer srv.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "test-key")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_MAX_ATTEMPTS", "2")
	t.Setenv("AWS_RETRY_MODE", "")

	ctx := context.Background()
	s, err := plugins.OpenStore(ctx, "s3://bkt/some/prefix?region=eu-west-3&endpoint="+srv.URL)
	if err != nil {
		t.Fatalf("OpenStore() = %v", err)
	}
	defer s.Close()
	take := func() []*http.Request {
		mu.Lock()
		defer mu.Unlock()
		r := reqs
		reqs = nil
		return r
	}

	_, err = s.Put(ctx, "a b/c", []byte("x"), plugins.PutOptions{IfNoneMatch: true})
	if !errors.Is(err, s3store.ErrAmbiguous) {
		t.Errorf("Put(IfNoneMatch) on a 500 error = %v, want ErrAmbiguous", err)
	}
	got := take()
	if len(got) != 1 {
		t.Fatalf("Put(IfNoneMatch) sent %d requests, want exactly 1", len(got))
	}
	r := got[0]
	if r.Method != http.MethodPut || r.URL.EscapedPath() != "/bkt/some/prefix/a%20b/c" || r.Header.Get("If-None-Match") != "*" {
		t.Errorf("request = %s %s If-None-Match %q; want PUT /bkt/some/prefix/a%%20b/c If-None-Match *", r.Method, r.URL.EscapedPath(), r.Header.Get("If-None-Match"))
	}
	if auth := r.Header.Get("Authorization"); !strings.Contains(auth, "Credential=test-key/") || !strings.Contains(auth, "/eu-west-3/s3/") {
		t.Errorf("Authorization = %q, want the env key and the URL region", auth)
	}

	_, err = s.Put(ctx, "k", []byte("x"), plugins.PutOptions{IfMatch: `"e1"`})
	if !errors.Is(err, s3store.ErrAmbiguous) {
		t.Errorf("Put(IfMatch) on a 500 error = %v, want ErrAmbiguous", err)
	}
	if got := take(); len(got) != 1 || got[0].Header.Get("If-Match") != `"e1"` {
		t.Errorf("Put(IfMatch) sent %d requests (If-Match %q), want 1 with If-Match \"e1\"", len(got), got[0].Header.Get("If-Match"))
	}

	_, err = s.Put(ctx, "k", []byte("x"), plugins.PutOptions{})
	if err == nil || errors.Is(err, s3store.ErrAmbiguous) {
		t.Errorf("Put() on a 500 error = %v, want a plain error", err)
	}
	if got := take(); len(got) != 2 {
		t.Errorf("unconditional Put() sent %d requests, want 2 (AWS_MAX_ATTEMPTS)", len(got))
	}
}
