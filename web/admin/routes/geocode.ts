// /api/geocode: the Fix form's address search (one request per button press).
import express, { type Router } from 'express';
import type { AppContext } from '../../context.ts';
import { shopOf } from '../auth.ts';
import { searchAddress } from '../services/geocode.ts';

export function geocodeRoutes(ctx: AppContext): Router {
  const r = express.Router();
  r.post('/geocode', async (req, res) => {
    res.json(await searchAddress(ctx, shopOf(res), req.body));
  });
  return r;
}
