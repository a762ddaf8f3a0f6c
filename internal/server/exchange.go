package server

// The exchange service: the rows of joins that move between members, and
// the members' exchange counters. Members only call it on each other.

import (
	"context"

	memberpb "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	"github.com/atolldb/atoll/internal/exec"
)

type exchangeService struct {
	memberpb.UnimplementedExchangeServiceServer
	s *Server
}

func (x *exchangeService) Exchange(stream memberpb.ExchangeService_ExchangeServer) error {
	qc, err := x.s.queryConfig()
	if err != nil {
		return err
	}
	return qc.Engine.ServeExchange(stream)
}

func (x *exchangeService) Stats(_ context.Context, r *memberpb.ExchangeStatsRequest) (*memberpb.ExchangeStatsResponse, error) {
	qc, err := x.s.queryConfig()
	if err != nil {
		return nil, err
	}
	return exec.ExchangeStatsProto(qc.Engine.LocalExchangeStats(r.Clear)), nil
}
