// Package k8s holds the Kubernetes manifests of NewsCrawl (a kustomize
// base and an example overlay) and the test that builds them and decodes
// every object strictly into the Kubernetes and KEDA API types. It is a
// Go module of its own, so those dependencies stay out of the project's.
package k8s
