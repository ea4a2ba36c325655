package daemon

import (
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/optimizer-dev/optimizer/result"
)

// TestOpenAPI_Verdicts: the verdict enum of openapi.json is the verdict
// table of package result, in its order.
func TestOpenAPI_Verdicts(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range doc.Components.Schemas["CandidateResult"].Value.Properties["verdict"].Value.Enum {
		got = append(got, v.(string))
	}
	var want []string
	for _, v := range result.Verdicts {
		want = append(want, string(v.Verdict))
	}
	if !slices.Equal(got, want) {
		t.Errorf("openapi.json's verdicts %q; package result's %q", got, want)
	}
}
