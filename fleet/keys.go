package fleet

// Bucket keys of cellhost's own, outside celld's reserved prefixes
// (fleet/, deploy/, deploy-blobs/, log/, telemetry/). They belong in
// internal/bucketkey once it lands.
const (
	// cellhostPrefix holds every key celld does not know.
	cellhostPrefix = "cellhost/"
	// SecretKey is the fleet secret that signs peer traffic.
	SecretKey = cellhostPrefix + "peer-secret.json"
	// DeploymentsPrefix holds one object per deployment,
	// cellhost/deployments/<id>.json, newest = highest id.
	DeploymentsPrefix = cellhostPrefix + "deployments/"
)
