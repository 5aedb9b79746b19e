package k8s

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// objects is a built kustomization, decoded strictly by kind.
type objects struct {
	deployments map[string]*appsv1.Deployment
	jobs        map[string]*batchv1.Job
	services    map[string]*corev1.Service
	configMaps  map[string]*corev1.ConfigMap
	secrets     map[string]*corev1.Secret
	namespaces  map[string]*corev1.Namespace
	budgets     map[string]*policyv1.PodDisruptionBudget
	scaled      map[string]*kedav1alpha1.ScaledObject
	triggerAuth map[string]*kedav1alpha1.TriggerAuthentication
	claims      map[string]*corev1.PersistentVolumeClaim
	namespace   map[string]string // kind/name → namespace
}

// build runs kustomize on dir and decodes every object into its API type,
// rejecting unknown fields: a typo or a field in the wrong place fails.
func build(t *testing.T, dir string) objects {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	o := objects{deployments: map[string]*appsv1.Deployment{}, jobs: map[string]*batchv1.Job{}, services: map[string]*corev1.Service{},
		configMaps: map[string]*corev1.ConfigMap{}, secrets: map[string]*corev1.Secret{}, namespaces: map[string]*corev1.Namespace{},
		budgets: map[string]*policyv1.PodDisruptionBudget{}, scaled: map[string]*kedav1alpha1.ScaledObject{},
		triggerAuth: map[string]*kedav1alpha1.TriggerAuthentication{}, claims: map[string]*corev1.PersistentVolumeClaim{},
		namespace: map[string]string{}}
	for _, r := range m.Resources() {
		raw, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		name, kind := r.GetName(), r.GetKind()
		o.namespace[kind+"/"+name] = r.GetNamespace()
		var target any
		switch kind {
		case "Deployment":
			target = into(o.deployments, name)
		case "Job":
			target = into(o.jobs, name)
		case "Service":
			target = into(o.services, name)
		case "ConfigMap":
			target = into(o.configMaps, name)
		case "Secret":
			target = into(o.secrets, name)
		case "Namespace":
			target = into(o.namespaces, name)
		case "PodDisruptionBudget":
			target = into(o.budgets, name)
		case "ScaledObject":
			target = into(o.scaled, name)
		case "TriggerAuthentication":
			target = into(o.triggerAuth, name)
		case "PersistentVolumeClaim":
			target = into(o.claims, name)
		default:
			t.Errorf("%s/%s: a kind this test does not know", kind, name)
			continue
		}
		if err := yaml.UnmarshalStrict(raw, target); err != nil {
			t.Errorf("%s/%s does not decode strictly: %v", kind, name, err)
		}
	}
	return o
}

// into makes the map's entry for name and returns it to decode into.
func into[T any](m map[string]*T, name string) *T {
	v := new(T)
	m[name] = v
	return v
}

// stageOf is a worker's settings prefix, input stream and group.
type stageOf struct{ prefix, stream, group string }

var stages = map[string]stageOf{
	"crawler":   {"CRAWL", "nc:{crawl}:stream", "crawler"},
	"cleaner":   {"CLEAN", "nc:{clean}:stream", "cleaner"},
	"extractor": {"EXTRACT", "nc:{extract}:stream", "extractor"},
	"embedder":  {"EMBED", "nc:{embed}:stream", "embedder"},
}

// checkWorkers checks what every worker needs beyond valid fields.
func checkWorkers(t *testing.T, o objects, maxExtractors int32) {
	t.Helper()
	checkStages(t, o, maxExtractors, stages)
}

// checkStages checks the workers of stages (with the rest of the base).
func checkStages(t *testing.T, o objects, maxExtractors int32, stages map[string]stageOf) {
	t.Helper()
	for name, st := range stages {
		d, ok := o.deployments[name]
		if !ok {
			t.Errorf("no Deployment %s", name)
			continue
		}
		pod := d.Spec.Template
		if len(pod.Spec.Containers) != 1 {
			t.Fatalf("%s: %d containers", name, len(pod.Spec.Containers))
		}
		c := pod.Spec.Containers[0]
		if len(c.Command) != 1 || c.Command[0] != name {
			t.Errorf("%s runs %v", name, c.Command)
		}
		if p := c.LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/livez" {
			t.Errorf("%s: liveness probe is not /livez", name)
		}
		if p := c.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" {
			t.Errorf("%s: readiness probe is not /healthz", name)
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
			t.Errorf("%s: resources %+v lack requests or a memory limit", name, c.Resources)
		}
		if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || *g <= 30 {
			t.Errorf("%s: termination grace %v, want longer than the stage's 30 s grace", name, g)
		}
		if pod.Annotations["prometheus.io/scrape"] != "true" || pod.Annotations["prometheus.io/port"] != "9100" {
			t.Errorf("%s: no Prometheus scrape annotations", name)
		}
		consumer := false
		for _, e := range c.Env {
			consumer = consumer || (e.Name == st.prefix+"_CONSUMER" && e.ValueFrom != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name")
		}
		if !consumer {
			t.Errorf("%s: %s_CONSUMER is not the pod name", name, st.prefix)
		}
		for _, ef := range c.EnvFrom {
			if ef.ConfigMapRef != nil && o.configMaps[ef.ConfigMapRef.Name] == nil {
				t.Errorf("%s: envFrom names a missing ConfigMap %s", name, ef.ConfigMapRef.Name)
			}
			if ef.SecretRef != nil && o.secrets[ef.SecretRef.Name] == nil {
				t.Errorf("%s: envFrom names a missing Secret %s", name, ef.SecretRef.Name)
			}
		}
		if b := o.budgets[name]; b == nil || b.Spec.Selector.MatchLabels["app.kubernetes.io/name"] != name {
			t.Errorf("%s: no PodDisruptionBudget selecting it", name)
		}
		// One trigger per partition stream of the stage; on a Redis
		// Cluster, KEDA's cluster scaler.
		cfg := o.configMaps["newscrawl-config"]
		streams := []string{st.stream}
		if n, _ := strconv.Atoi(cfg.Data[st.prefix+"_PARTITIONS"]); n > 1 {
			streams = nil
			for i := range n {
				streams = append(streams, strings.Replace(st.stream, "}", ":"+strconv.Itoa(i)+"}", 1))
			}
		}
		kind, address := "redis-streams", "addressFromEnv"
		if cfg.Data["REDIS_CLUSTER"] == "1" {
			kind, address = "redis-cluster-streams", "addressesFromEnv"
		}
		so := o.scaled[name]
		if so == nil || so.Spec.ScaleTargetRef.Name != name || len(so.Spec.Triggers) != len(streams) {
			t.Errorf("%s: no ScaledObject with %d triggers (one per partition stream) targeting it", name, len(streams))
			continue
		}
		for i, tr := range so.Spec.Triggers {
			if tr.Type != kind || tr.Metadata["stream"] != streams[i] || tr.Metadata["consumerGroup"] != st.group ||
				cfg.Data[tr.Metadata[address]] == "" || tr.Metadata["lagCount"] == "" ||
				tr.AuthenticationRef == nil || o.triggerAuth[tr.AuthenticationRef.Name] == nil {
				t.Errorf("%s: trigger %+v, want %s on %s / %s by lag, its %s set, with its TriggerAuthentication",
					name, tr, kind, streams[i], st.group, address)
			}
		}
		if so.Spec.MaxReplicaCount == nil || so.Spec.MinReplicaCount == nil || *so.Spec.MinReplicaCount < 1 {
			t.Errorf("%s: replica bounds %v..%v", name, so.Spec.MinReplicaCount, so.Spec.MaxReplicaCount)
		}
		if name == "extractor" && so.Spec.MaxReplicaCount != nil && *so.Spec.MaxReplicaCount > maxExtractors {
			t.Errorf("extractor may scale to %d, past what one model server takes (%d)", *so.Spec.MaxReplicaCount, maxExtractors)
		}
	}
	if j := o.jobs["newscrawl-migrate"]; j == nil || strings.Join(j.Spec.Template.Spec.Containers[0].Command, " ") != "newsctl migrate" {
		t.Error("no migrate Job running newsctl migrate")
	}
	if s := o.services["api"]; s == nil || s.Spec.Type == corev1.ServiceTypeLoadBalancer || s.Spec.Type == corev1.ServiceTypeNodePort {
		t.Error("the api Service is missing or exposed outside the cluster")
	}
}

func TestBase_BuildsAndDecodesStrictly(t *testing.T) {
	o := build(t, "base")
	checkWorkers(t, o, 4)
}

func TestExampleOverlay_BuildsAndDecodesStrictly(t *testing.T) {
	o := build(t, "overlays/example")
	checkWorkers(t, o, 2)
	for obj, ns := range o.namespace {
		if ns != "newscrawl" && !strings.HasPrefix(obj, "Namespace/") {
			t.Errorf("%s is in namespace %q, want newscrawl", obj, ns)
		}
	}
	for name, d := range o.deployments {
		if img := d.Spec.Template.Spec.Containers[0].Image; img != "registry.example.com/newscrawl:0.3.0" {
			t.Errorf("%s runs image %s", name, img)
		}
	}
	if cm := o.configMaps["newscrawl-config"]; cm == nil || cm.Data["STREAM_PREFIX"] != "nc" || cm.Data["EMBED_BASE_URL"] == "" {
		t.Errorf("the overlay's settings did not merge into the base's: %+v", cm)
	}
	fmt.Fprintf(testingWriter{t}, "%d Deployments, %d ScaledObjects\n", len(o.deployments), len(o.scaled))
}

func TestClusterOverlay_BuildsAndDecodesStrictly(t *testing.T) {
	o := build(t, "overlays/cluster")
	checkWorkers(t, o, 2)
	cm := o.configMaps["newscrawl-config"]
	if cm == nil || cm.Data["REDIS_CLUSTER"] != "1" || cm.Data["CLEAN_PARTITIONS"] != "4" || cm.Data["EMBED_PARTITIONS"] != "4" {
		t.Errorf("the cluster overlay's settings: %+v", cm)
	}
	if len(o.scaled["cleaner"].Spec.Triggers) != 4 {
		t.Errorf("the cleaner scales on %d partition streams, want 4", len(o.scaled["cleaner"].Spec.Triggers))
	}
}

func TestArchiveOverlay_BuildsAndDecodesStrictly(t *testing.T) {
	o := build(t, "overlays/archive")
	checkWorkers(t, o, 2)
	if cm := o.configMaps["newscrawl-config"]; cm == nil || cm.Data["CRAWL_WARC_DIR"] != "/warc" {
		t.Errorf("CRAWL_WARC_DIR is not /warc: %+v", cm)
	}
	pod := o.deployments["crawler"].Spec.Template.Spec
	mounted := false
	for _, m := range pod.Containers[0].VolumeMounts {
		mounted = mounted || (m.Name == "warc" && m.MountPath == "/warc")
	}
	var claim string
	for _, v := range pod.Volumes {
		if v.Name == "warc" && v.PersistentVolumeClaim != nil && v.EmptyDir == nil {
			claim = v.PersistentVolumeClaim.ClaimName
		}
	}
	if !mounted || claim == "" || o.claims[claim] == nil {
		t.Errorf("the crawler mounts /warc: %v, from claim %q (%v)", mounted, claim, o.claims)
	}
}

func TestRenderOverlay_BuildsAndDecodesStrictly(t *testing.T) {
	o := build(t, "overlays/render")
	all := map[string]stageOf{"renderer": {"RENDER", "nc:{render}:stream", "renderer"}}
	for k, v := range stages {
		all[k] = v
	}
	checkStages(t, o, 2, all)
	if cm := o.configMaps["newscrawl-config"]; cm == nil || cm.Data["RENDER"] != "auto" {
		t.Errorf("RENDER is not auto: %+v", cm)
	}
	c := o.deployments["renderer"].Spec.Template.Spec.Containers[0]
	if c.Image != "registry.example.com/newscrawl-renderer:0.3.0" {
		t.Errorf("the renderer runs image %s, want the renderer target's", c.Image)
	}
	if lim, budget := c.Resources.Limits.Memory().Value(), int64(1<<30); lim <= budget {
		t.Errorf("the renderer's memory limit %d is not above RENDER_MEMORY %d", lim, budget)
	}
}

type testingWriter struct{ t *testing.T }

func (w testingWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
