// The built-in extraction schemas every workspace has: read-only, matched by common markup
// (Open Graph and article meta tags, schema.org microdata, then plain HTML conventions). The
// selectors of a field are tried in order, so the most reliable source comes first.
import type { components } from '../../../generated/api.js';

export type SchemaDefinition = components['schemas']['FetchSchemaDefinition'];
type Field = components['schemas']['FetchSchemaField'];

const meta = (property: string): { selector: string; attribute: string } => ({ selector: `meta[property="${property}"]`, attribute: 'content' });
const metaName = (name: string): { selector: string; attribute: string } => ({ selector: `meta[name="${name}"]`, attribute: 'content' });
const prop = (name: string, attribute?: string) => (attribute ? { selector: `[itemprop="${name}"]`, attribute } : { selector: `[itemprop="${name}"]` });
const field = (type: Field['type'], ...selectors: Field['selectors']): Field => ({ type, selectors });

export const BUILTIN_SCHEMAS: Record<string, SchemaDefinition> = {
  article: {
    description: 'A news or blog article: headline, author, dates, summary, image, section headings and tags.',
    fields: {
      title: field('string', meta('og:title'), prop('headline'), { selector: 'article h1' }, { selector: 'h1' }, { selector: 'title' }),
      author: field('string', metaName('author'), prop('author'), { selector: '[rel="author"]' }, { selector: '.byline' }),
      published_at: field('string', meta('article:published_time'), prop('datePublished', 'content'), prop('datePublished', 'datetime'), {
        selector: 'time[datetime]',
        attribute: 'datetime',
      }),
      modified_at: field('string', meta('article:modified_time'), prop('dateModified', 'content'), prop('dateModified', 'datetime')),
      description: field('string', meta('og:description'), metaName('description')),
      image: field('url', meta('og:image'), prop('image', 'src')),
      site_name: field('string', meta('og:site_name')),
      headings: field('list', { selector: 'article h2' }, { selector: 'main h2' }, { selector: 'h2' }),
      tags: field('list', meta('article:tag'), { selector: 'a[rel="tag"]' }, { selector: '.tags a' }),
    },
  },
  product: {
    description: 'A product page: name, price and currency, availability, SKU, brand, image and description.',
    fields: {
      name: field('string', prop('name', 'content'), { selector: '[itemtype*="schema.org/Product"] [itemprop="name"]' }, meta('og:title'), { selector: 'h1' }),
      price: field('number', prop('price', 'content'), prop('price'), meta('product:price:amount'), meta('og:price:amount'), { selector: '.price' }),
      currency: field('string', prop('priceCurrency', 'content'), prop('priceCurrency'), meta('product:price:currency'), meta('og:price:currency')),
      availability: field(
        'string',
        { selector: 'link[itemprop="availability"]', attribute: 'href' },
        prop('availability', 'content'),
        prop('availability'),
        meta('product:availability'),
      ),
      sku: field('string', prop('sku', 'content'), prop('sku')),
      brand: field('string', { selector: '[itemprop="brand"] [itemprop="name"]' }, prop('brand', 'content'), prop('brand'), meta('product:brand')),
      image: field('url', meta('og:image'), prop('image', 'src'), prop('image', 'content')),
      description: field('string', prop('description', 'content'), prop('description'), meta('og:description'), metaName('description')),
    },
  },
  recipe: {
    description: 'A recipe: name, yield, times, ingredients and steps, from schema.org microdata or common class names.',
    fields: {
      name: field('string', { selector: '[itemtype*="schema.org/Recipe"] [itemprop="name"]' }, meta('og:title'), { selector: 'h1' }),
      description: field('string', prop('description', 'content'), prop('description'), meta('og:description'), metaName('description')),
      yield: field('string', prop('recipeYield', 'content'), prop('recipeYield')),
      prep_time: field('string', prop('prepTime', 'content'), prop('prepTime', 'datetime')),
      cook_time: field('string', prop('cookTime', 'content'), prop('cookTime', 'datetime')),
      total_time: field('string', prop('totalTime', 'content'), prop('totalTime', 'datetime')),
      ingredients: field('list', prop('recipeIngredient'), prop('ingredients'), { selector: '.ingredients li' }),
      steps: field(
        'list',
        { selector: '[itemprop="recipeInstructions"] [itemprop="text"]' },
        { selector: '[itemprop="recipeInstructions"] li' },
        prop('recipeInstructions'),
        { selector: '.instructions li' },
        { selector: '.steps li' },
      ),
      image: field('url', meta('og:image'), prop('image', 'src'), prop('image', 'content')),
    },
  },
};
