package release

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

const modulePath = "github.com/cellhost/cellhost"

// TestGoModHasNoReplace pins the precondition of `go install
// github.com/cellhost/cellhost/cmd/cellhost@<version>`: `go help install`
// refuses a module whose go.mod has replace or exclude directives. The goja
// fork and goja_nodejs (whose packages take the fork's types) live inside
// the module (third_party/) for that reason; a replace coming back breaks
// the install route, and this test names it.
func TestGoModHasNoReplace(t *testing.T) {
	data, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Module.Mod.Path != modulePath {
		t.Errorf("module path %q, want %q (the path `go install` is documented with)", f.Module.Mod.Path, modulePath)
	}
	for _, r := range f.Replace {
		t.Errorf("go.mod replaces %s with %s: `go install %s/cmd/cellhost@<version>` refuses a module with replace directives", r.Old.Path, r.New.Path, modulePath)
	}
	for _, e := range f.Exclude {
		t.Errorf("go.mod excludes %s: `go install ...@<version>` refuses a module with exclude directives", e.Mod)
	}
}

// TestGoInstall runs the documented install route end to end, offline:
// it packs the committed tree (HEAD, as a tag would publish it) into a
// module zip with golang.org/x/mod/zip (the go command's own rules: size
// limits, no nested modules, no vendor), serves it from a file:// module
// proxy, runs `go install github.com/cellhost/cellhost/cmd/cellhost@v0.0.1`
// into a fresh GOBIN, and checks that the binary reports that version
// (release/npm-smoke.sh serves a request with the release build). Dependencies come
// from the module cache (GOPROXY is only the file proxy, GOSUMDB off: no
// traffic leaves the machine; go.sum still verifies every dependency).
// Minutes with a cold cache (the module's packages compile again under
// their module-cache paths), so opt-in: CELLHOST_GOINSTALL=1 (.ci/run).
func TestGoInstall(t *testing.T) {
	if os.Getenv("CELLHOST_GOINSTALL") != "1" {
		t.Skip("builds cellhost through `go install ...@version` from a local module proxy (minutes): CELLHOST_GOINSTALL=1 go test ./release/ -run TestGoInstall (.ci/run does)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command on PATH: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	const version = "v0.0.1"
	proxy := t.TempDir()
	dir := filepath.Join(proxy, modulePath, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mv := module.Version{Path: modulePath, Version: version}
	zf, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	// The committed tree only (git archive), as a tag publishes it: a work
	// tree also holds node_modules and build output. (zip.CreateFromVCS
	// does the same but wants a .git directory, which a git worktree lacks.)
	tree := t.TempDir()
	archive := exec.Command("sh", "-c", `git -C "$1" archive HEAD | tar -x -C "$2"`, "sh", root, tree)
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive HEAD: %v\n%s", err, out)
	}
	if err := zip.CreateFromDir(zf, mv, tree); err != nil {
		zf.Close()
		t.Fatalf("packing HEAD as a module zip: %v", err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(tree, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	for name, data := range map[string][]byte{
		version + ".mod":  gomod,
		version + ".info": info,
		"list":            []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	gobin := t.TempDir()
	cmd := exec.Command(goBin, "install", modulePath+"/cmd/cellhost@"+version)
	cmd.Dir = t.TempDir() // outside any module, as a user would run it
	cmd.Env = append(os.Environ(),
		"GOBIN="+gobin,
		"GOPROXY=file://"+filepath.ToSlash(proxy),
		"GOSUMDB=off",
		"GOFLAGS=",
		"GOWORK=off",
		"CGO_ENABLED=0",
	)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/cellhost@%s: %v\n%s", modulePath, version, err, out)
	}
	bin := filepath.Join(gobin, "cellhost")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("cellhost --version: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte(version)) {
		t.Errorf("cellhost --version = %q, want the module version %s (Go records it in the build info)", strings.TrimSpace(string(out)), version)
	}
}
