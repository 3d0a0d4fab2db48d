// Package tokens counts real o200k tokens, the measure that tests and
// benchmarks hold snapshots to. The runtime uses the cheaper
// tree.EstimateTokens; this package loads the tokenizer's vocabulary, so it is
// kept out of the hot path.
package tokens

import (
	"fmt"

	"github.com/tiktoken-go/tokenizer"
)

// Counter counts o200k tokens. Build one with New and reuse it: loading the
// vocabulary is the expensive part.
type Counter struct {
	codec tokenizer.Codec
}

// New loads the o200k_base vocabulary.
func New() (*Counter, error) {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, fmt.Errorf("load o200k tokenizer: %w", err)
	}
	return &Counter{codec: c}, nil
}

// Count returns the number of o200k tokens in s.
func (c *Counter) Count(s string) int {
	n, err := c.codec.Count(s)
	if err != nil {
		ids, _, _ := c.codec.Encode(s)
		return len(ids)
	}
	return n
}
