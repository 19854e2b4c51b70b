package limitsim_test

import (
	"fmt"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem/lab/limitsim"
)

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	for _, sc := range limitsim.OpenScenarios {
		if n := os.Getenv("SC"); n != "" && n != sc.Name {
			continue
		}
		synctest.Test(t, func(t *testing.T) {
			began := time.Now()
			rows := limitsim.CompareOpen(sc, limitsim.OpenContenders(), 1)
			fmt.Print(limitsim.OpenTable(rows))
			for _, r := range rows {
				fmt.Println(limitsim.OpenMisses(r))
			}
			_ = began
		})
	}
}
