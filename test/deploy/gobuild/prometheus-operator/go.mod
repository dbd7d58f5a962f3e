// Wrapper module pinning prometheus-operator, whose module ships the YAML of
// its CustomResourceDefinitions (example/prometheus-operator-crd). The deploy
// tests read them from the module cache; nothing is built from it.
module cr-status-exporter/deploy-tools/prometheus-operator

go 1.26.0

require github.com/prometheus-operator/prometheus-operator v0.85.0
