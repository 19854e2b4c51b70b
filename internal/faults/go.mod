module github.com/semacat/sem/internal/faults

go 1.26.0

require (
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

replace (
	github.com/semacat/sem => ../..
	github.com/semacat/sem/etcdsem => ../../etcdsem
	github.com/semacat/sem/redissem => ../../redissem
)
