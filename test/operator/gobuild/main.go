// A minimal controller-runtime operator for the end-to-end tests. By default
// it reconciles the example.com/v1 Widgets of one namespace: a generation it
// has not reconciled yet is marked Ready=False (Progressing), takes
// --work-delay of "work", then is marked Ready=True. Both are status Updates
// (resourceVersion checked, as operators commonly write status); a conflict is
// returned as the error, so controller-runtime logs it and requeues the widget
// with backoff: the 409 retry loop of a real operator. It prints one line per
// step on stdout, which the test reads, and exits when its stdin closes, so it
// never outlives the test that started it.
//
// With --certificates it reconciles cert-manager.io/v1 Certificates instead,
// writing status the way cert-manager does (certificateReconciler).
//
// With --leader-elect-id it runs controller-runtime's leader election on a
// Lease of that name in its namespace (durations from --lease-duration,
// --renew-deadline, --retry-period), prints "elected leader" once it holds the
// Lease, and exits 1 ("manager stopped: leader election lost") if it cannot
// renew it in time, as a real operator does.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

var widgetKind = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}

type reconciler struct {
	client    client.Client
	workDelay time.Duration
}

func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	widget, err := get(ctx, r.client, widgetKind, req)
	if widget == nil {
		return ctrl.Result{}, err
	}
	generation := widget.GetGeneration()
	observed, _, _ := unstructured.NestedInt64(widget.Object, "status", "observedGeneration")
	if observed == generation && readyStatus(widget) == "True" {
		return ctrl.Result{}, nil
	}
	if err := r.writeReady(ctx, widget, "False", "Progressing", observed, "Provisioning"); err != nil {
		return ctrl.Result{}, err
	}
	fmt.Printf("working on %s generation %d\n", req.NamespacedName, generation)
	time.Sleep(r.workDelay)
	if err := r.writeReady(ctx, widget, "True", "Reconciled", generation, "Running"); err != nil {
		return ctrl.Result{}, err
	}
	fmt.Printf("ready %s generation %d\n", req.NamespacedName, generation)
	return ctrl.Result{}, nil
}

// writeReady updates the status from the widget as read (its resourceVersion
// included): a write by anyone else since then makes it a 409 Conflict.
func (r *reconciler) writeReady(ctx context.Context, widget *unstructured.Unstructured, status, reason string, observed int64, phase string) error {
	ready := map[string]any{
		"type": "Ready", "status": status, "reason": reason, "observedGeneration": widget.GetGeneration(),
		"lastTransitionTime": metav1.Now().UTC().Format(time.RFC3339),
	}
	// The transition time moves only when the status does.
	if since, ok := readyField(widget, "lastTransitionTime").(string); ok && readyStatus(widget) == status {
		ready["lastTransitionTime"] = since
	}
	fields := []struct {
		value any
		path  []string
	}{
		{observed, []string{"status", "observedGeneration"}},
		{phase, []string{"status", "phase"}},
		{[]any{ready}, []string{"status", "conditions"}},
	}
	for _, field := range fields {
		if err := unstructured.SetNestedField(widget.Object, field.value, field.path...); err != nil {
			return err
		}
	}
	if err := r.client.Status().Update(ctx, widget); err != nil {
		fmt.Printf("status update of %s/%s (Ready=%s) failed: %v\n", widget.GetNamespace(), widget.GetName(), status, err)
		return err
	}
	return nil
}

func readyStatus(widget *unstructured.Unstructured) string {
	status, _ := readyField(widget, "status").(string)
	return status
}

func readyField(widget *unstructured.Unstructured, name string) any {
	return findCondition(widget, "Ready")[name]
}

// get reads the object of a request; nil (with the error, none for NotFound) when it cannot.
func get(ctx context.Context, c client.Client, kind schema.GroupVersionKind, req ctrl.Request) (*unstructured.Unstructured, error) {
	object := &unstructured.Unstructured{}
	object.SetGroupVersionKind(kind)
	if err := c.Get(ctx, req.NamespacedName, object); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	return object, nil
}

var certificateKind = schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"}

// certificateReconciler writes a Certificate's status in cert-manager's shape:
// no status.observedGeneration, each condition carrying the generation it was
// written for, and several status writes per generation — Issuing=True first
// (the trigger), then Ready=False (DoesNotExist for generation 1, else
// Reissuing), its reason moved to Issuing, the work, Ready=True with Issuing
// gone, then the issued certificate's fields in two more writes while Ready
// stays True. Each write is an Update of the object the previous one returned.
type certificateReconciler struct {
	client    client.Client
	workDelay time.Duration
}

func (r *certificateReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	certificate, err := get(ctx, r.client, certificateKind, req)
	if certificate == nil {
		return ctrl.Result{}, err
	}
	generation := certificate.GetGeneration()
	ready := findCondition(certificate, "Ready")
	if ready != nil && ready["status"] == "True" && ready["observedGeneration"] == generation {
		return ctrl.Result{}, nil
	}
	waiting := "Reissuing"
	if generation == 1 {
		waiting = "DoesNotExist"
	}
	steps := []struct {
		name  string
		apply func(*unstructured.Unstructured)
	}{
		{"issuing", func(c *unstructured.Unstructured) { setCondition(c, "Issuing", "True", "DoesNotExist") }},
		{"not ready", func(c *unstructured.Unstructured) { setCondition(c, "Ready", "False", waiting) }},
		{"not ready issuing", func(c *unstructured.Unstructured) { setCondition(c, "Ready", "False", "Issuing") }},
		{"ready", func(c *unstructured.Unstructured) {
			removeCondition(c, "Issuing")
			setCondition(c, "Ready", "True", "Ready")
		}},
		{"issued", func(c *unstructured.Unstructured) {
			now := time.Now().UTC()
			_ = unstructured.SetNestedField(c.Object, now.Format(time.RFC3339), "status", "notBefore")
			_ = unstructured.SetNestedField(c.Object, now.Add(90*24*time.Hour).Format(time.RFC3339), "status", "notAfter")
		}},
		{"renewal", func(c *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(c.Object, time.Now().UTC().Add(60*24*time.Hour).Format(time.RFC3339), "status", "renewalTime")
			_ = unstructured.SetNestedField(c.Object, generation, "status", "revision")
		}},
	}
	for _, step := range steps {
		if step.name == "ready" {
			time.Sleep(r.workDelay)
		}
		step.apply(certificate)
		if err := r.client.Status().Update(ctx, certificate); err != nil {
			fmt.Printf("status update of %s (%s) failed: %v\n", req.NamespacedName, step.name, err)
			return ctrl.Result{}, err
		}
		fmt.Printf("%s %s generation %d\n", step.name, req.NamespacedName, generation)
	}
	return ctrl.Result{}, nil
}

func findCondition(object *unstructured.Unstructured, conditionType string) map[string]any {
	conditions, _, _ := unstructured.NestedSlice(object.Object, "status", "conditions")
	for _, item := range conditions {
		if condition, ok := item.(map[string]any); ok && condition["type"] == conditionType {
			return condition
		}
	}
	return nil
}

// setCondition writes one condition for the object's generation; its
// lastTransitionTime moves only when its status does.
func setCondition(object *unstructured.Unstructured, conditionType, status, reason string) {
	since := metav1.Now().UTC().Format(time.RFC3339)
	if old := findCondition(object, conditionType); old != nil && old["status"] == status {
		if kept, ok := old["lastTransitionTime"].(string); ok {
			since = kept
		}
	}
	condition := map[string]any{
		"type": conditionType, "status": status, "reason": reason, "message": reason,
		"lastTransitionTime": since, "observedGeneration": object.GetGeneration(),
	}
	removeCondition(object, conditionType)
	conditions, _, _ := unstructured.NestedSlice(object.Object, "status", "conditions")
	_ = unstructured.SetNestedSlice(object.Object, append(conditions, condition), "status", "conditions")
}

func removeCondition(object *unstructured.Unstructured, conditionType string) {
	conditions, _, _ := unstructured.NestedSlice(object.Object, "status", "conditions")
	kept := []any{}
	for _, item := range conditions {
		if condition, ok := item.(map[string]any); !ok || condition["type"] != conditionType {
			kept = append(kept, item)
		}
	}
	_ = unstructured.SetNestedSlice(object.Object, kept, "status", "conditions")
}

func main() {
	namespace := flag.String("namespace", "", "the namespace whose objects are reconciled")
	workDelay := flag.Duration("work-delay", time.Second, "how long each generation's work takes")
	certificates := flag.Bool("certificates", false, "reconcile cert-manager.io/v1 Certificates (cert-manager's status shape) instead of Widgets")
	leaderElectID := flag.String("leader-elect-id", "", "the Lease to hold in --namespace (no leader election when empty)")
	leaseDuration := flag.Duration("lease-duration", 15*time.Second, "leader election: how long a Lease is valid")
	renewDeadline := flag.Duration("renew-deadline", 10*time.Second, "leader election: how long the leader retries renewing before it gives up")
	retryPeriod := flag.Duration("retry-period", 2*time.Second, "leader election: how often the Lease is renewed")
	flag.Parse()
	if *namespace == "" {
		fmt.Fprintln(os.Stderr, "--namespace is required")
		os.Exit(2)
	}
	ctrl.SetLogger(zap.New())
	// GetConfigOrDie honours KUBECONFIG first: the kubeconfig the API proxy wrote.
	manager, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Cache:                         cache.Options{DefaultNamespaces: map[string]cache.Config{*namespace: {}}},
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:        "0",
		LeaderElection:                *leaderElectID != "",
		LeaderElectionID:              *leaderElectID,
		LeaderElectionNamespace:       *namespace,
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 leaseDuration,
		RenewDeadline:                 renewDeadline,
		RetryPeriod:                   retryPeriod,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "manager: %v\n", err)
		os.Exit(1)
	}
	watched := &unstructured.Unstructured{}
	var target interface {
		Reconcile(context.Context, ctrl.Request) (ctrl.Result, error)
	} = &reconciler{client: manager.GetClient(), workDelay: *workDelay}
	name := "widget"
	watched.SetGroupVersionKind(widgetKind)
	if *certificates {
		watched.SetGroupVersionKind(certificateKind)
		target = &certificateReconciler{client: manager.GetClient(), workDelay: *workDelay}
		name = "certificate"
	}
	err = ctrl.NewControllerManagedBy(manager).
		Named(name).
		For(watched).
		Complete(target)
	if err != nil {
		fmt.Fprintf(os.Stderr, "controller: %v\n", err)
		os.Exit(1)
	}
	ctx, stop := context.WithCancel(ctrl.SetupSignalHandler())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	go func() {
		<-manager.Elected()
		if *leaderElectID != "" {
			fmt.Println("elected leader")
		}
	}()
	fmt.Println("starting")
	if err := manager.Start(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "manager stopped: %v\n", err)
		os.Exit(1)
	}
}
