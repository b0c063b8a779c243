// Package kubernetes checks txlab's Kubernetes manifests offline: every
// document decodes strictly (no unknown field, every field of the right
// type) into the Kubernetes API's own Go types, and the Job's shards agree
// with each other and with the merge step. It is a module of its own so
// that k8s.io/api stays out of txlab's go.mod.
package kubernetes

import (
	"os"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// documents decodes a manifest file's documents strictly by kind.
func documents(t *testing.T, file string) (jobs []*batchv1.Job, claims []*corev1.PersistentVolumeClaim) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, doc := range strings.Split(string(data), "\n---\n") {
		var head struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatalf("%s, document %d: %v", file, i+1, err)
		}
		switch head.APIVersion + " " + head.Kind {
		case "batch/v1 Job":
			var j batchv1.Job
			if err := yaml.UnmarshalStrict([]byte(doc), &j); err != nil {
				t.Fatalf("%s, document %d: %v", file, i+1, err)
			}
			jobs = append(jobs, &j)
		case "v1 PersistentVolumeClaim":
			var c corev1.PersistentVolumeClaim
			if err := yaml.UnmarshalStrict([]byte(doc), &c); err != nil {
				t.Fatalf("%s, document %d: %v", file, i+1, err)
			}
			claims = append(claims, &c)
		default:
			t.Fatalf("%s, document %d: unexpected %s %s", file, i+1, head.APIVersion, head.Kind)
		}
	}
	return jobs, claims
}

func env(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

func TestManifests(t *testing.T) {
	jobs, claims := documents(t, "txlab-shards.yaml")
	if len(jobs) != 1 || len(claims) != 1 {
		t.Fatalf("txlab-shards.yaml: %d jobs, %d claims; want one of each", len(jobs), len(claims))
	}
	shards := jobs[0]
	spec := shards.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Error("the shards' Job is not Indexed: its pods would not know their shard")
	}
	c := spec.Template.Spec.Containers[0]
	n := env(c, "TXLAB_SHARDS")
	if spec.Completions == nil || spec.Parallelism == nil || n == "" ||
		n != itoa(*spec.Completions) || *spec.Parallelism != *spec.Completions {
		t.Errorf("completions, parallelism and TXLAB_SHARDS must agree: %v %v %q", spec.Completions, spec.Parallelism, n)
	}
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"JOB_COMPLETION_INDEX + 1", `--shard "$shard/$TXLAB_SHARDS"`, `--seed "$TXLAB_SEED"`, `--out "/results/shard-$shard"`, `[ "$rc" -le 1 ]`} {
		if !strings.Contains(args, want) {
			t.Errorf("the shard's command lacks %q:\n%s", want, args)
		}
	}
	if spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Error("a shard must not restart in place: its --out directory would hold two runs")
	}
	merges, _ := documents(t, "txlab-merge.yaml")
	if len(merges) != 1 {
		t.Fatalf("txlab-merge.yaml: %d jobs", len(merges))
	}
	m := merges[0].Spec.Template.Spec
	if got := env(m.Containers[0], "TXLAB_SHARDS"); got != n {
		t.Errorf("the merge expects %q shards, the Job runs %q", got, n)
	}
	margs := strings.Join(m.Containers[0].Args, " ")
	if !strings.Contains(margs, "txlab report --out") || !strings.Contains(margs, "/results/shard-%g 1") {
		t.Errorf("the merge's command: %s", margs)
	}
	for _, v := range append(m.Volumes, spec.Template.Spec.Volumes...) {
		if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != claims[0].Name {
			t.Errorf("volume %s does not mount the claim %s", v.Name, claims[0].Name)
		}
	}
}

func itoa(n int32) string {
	var b []byte
	for n > 0 || len(b) == 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
