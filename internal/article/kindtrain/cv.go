package main

import (
	"fmt"

	"github.com/newscrawl/newscrawl/internal/article"
)

// crossValidate prints, for each L2 penalty, the best article precision
// at article recall ≥ want over k folds of the tune half, pooled: every
// fold is decided by a model trained on the other folds, with one floor
// swept over all folds, so the check half is never consulted.
func crossValidate(tune []sample, classes []string, k, steps int, want float64) {
	type fold struct {
		m    *model
		held []sample
	}
	for _, l2 := range []float64{0.001, 0.003, 0.01, 0.03, 0.1} {
		var folds []fold
		for f := range k {
			var train, held []sample
			for i, s := range tune {
				if i%k == f {
					held = append(held, s)
				} else {
					train = append(train, s)
				}
			}
			folds = append(folds, fold{fit(judged(train), classes, l2, steps), held})
		}
		best, bestFloor, bestRecall := 0.0, 0.0, 0.0
		for step := 1; step < 400; step++ {
			floor := float64(step) / 400
			var called, right, arts int
			for _, fo := range folds {
				fo.m.ArticleFloor, fo.m.RescueFloor = floor, floor
				for _, s := range fo.held {
					isArt, _ := fo.m.Decide(s.input)
					if s.kind == article.KindArticle {
						arts++
					}
					if isArt {
						called++
						if s.kind == article.KindArticle {
							right++
						}
					}
				}
			}
			p, r := float64(right)/float64(max(called, 1)), float64(right)/float64(max(arts, 1))
			if r >= want && p > best {
				best, bestFloor, bestRecall = p, floor, r
			}
		}
		fmt.Printf("cv l2 %-6g precision %.3f at recall %.3f (floor %.4f)\n", l2, best, bestRecall, bestFloor)
	}
}
