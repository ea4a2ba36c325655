package daemon

import (
	_ "embed"
	"net/http"
)

// OpenAPI is the API's OpenAPI 3 document, kept in the repository beside
// the code (openapi.json) and served at /v1/openapi.json. Tests check real
// responses against it.
//
//go:embed openapi.json
var OpenAPI []byte

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(OpenAPI)
}
