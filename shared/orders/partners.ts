/**
 * Partner records (O6, see docs/access-patterns.md): the discount a partner's orders get on the
 * service fee. Written by operators through `npm run partners`; read by order creation.
 */
import * as v from 'valibot';
import { getItem, putItem, queryAll, rangeQuery } from '../db/operations';
import { orderKeys } from '../table/keys';
import { now } from './clock';

export interface Partner {
  partnerId: string;
  name: string | null;
  /** Basis points taken off the service fee of the partner's orders (after the whale discount). */
  discountBps: number;
  createdAt: number;
  updatedAt: number;
}

export const partnerInputSchema = v.object({
  partnerId: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'partnerId must be 1 to 64 letters, digits, hyphens or underscores')),
  name: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
  discountBps: v.pipe(
    v.number(),
    v.integer('discountBps must be an integer'),
    v.minValue(0, 'discountBps must be at least 0'),
    v.maxValue(10_000, 'discountBps must be at most 10000'),
  ),
});

export type PartnerInput = v.InferOutput<typeof partnerInputSchema>;

export async function getPartner(partnerId: string): Promise<Partner | undefined> {
  const item = await getItem(orderKeys.partner(partnerId));
  return item ? toPartner(item) : undefined;
}

/** Creates or replaces a partner record (keeping its creation time). */
export async function putPartner(input: PartnerInput): Promise<Partner> {
  const partner = v.parse(partnerInputSchema, input);
  const at = now();
  const previous = await getPartner(partner.partnerId);
  const record: Partner = {
    partnerId: partner.partnerId,
    name: partner.name ?? null,
    discountBps: partner.discountBps,
    createdAt: previous?.createdAt ?? at,
    updatedAt: at,
  };
  await putItem({
    Item: { ...orderKeys.partner(partner.partnerId), ...orderKeys.partnerListing(partner.partnerId), entity: 'partner', ...record },
  });
  return record;
}

/** Every partner, by id (one Query on the partner listing range, GSI1, paged through). */
export async function listPartners(): Promise<Partner[]> {
  const { items } = await queryAll(rangeQuery(orderKeys.partnersRange()));
  return items.map(toPartner);
}

function toPartner(item: Record<string, unknown>): Partner {
  return {
    partnerId: String(item.partnerId),
    name: typeof item.name === 'string' ? item.name : null,
    discountBps: Number(item.discountBps ?? 0),
    createdAt: Number(item.createdAt),
    updatedAt: Number(item.updatedAt),
  };
}
