// Wrapper module pinning the projects whose CustomResourceDefinitions the
// real-CRD tests install. Each module ships the YAML of its CRDs; the tests
// read them from the Go module cache (fetch.sh); nothing is built from them.
// The versions below are the one place where they are pinned.
module cr-status-exporter/real-crds

go 1.26.0

require (
	github.com/argoproj/argo-cd/v3 v3.2.0
	github.com/cert-manager/cert-manager v1.19.1
	github.com/cloudnative-pg/cloudnative-pg v1.27.1
	github.com/crossplane-contrib/provider-kubernetes v1.3.1
	github.com/crossplane/crossplane/v2 v2.1.0
	github.com/fluxcd/helm-controller v1.4.3
	github.com/fluxcd/kustomize-controller v1.7.2
	github.com/fluxcd/source-controller v1.7.2
	sigs.k8s.io/cluster-api v1.11.3
)
