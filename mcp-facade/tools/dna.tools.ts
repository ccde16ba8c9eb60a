/**
 * DNA (issue 34): the person's uploaded raw genome file read honestly: the overview, a gene, named
 * variants, the curated knowledge, and deleting it. Over OAuth these answer findings and lookups
 * only, never the whole genome (the rule lives behind the fields: src/domains/dna/dna.access.ts).
 */
import type { McpTool } from '../tool.ts';

export const dnaTools: McpTool[] = [
  {
    name: 'dna_report_read',
    title: 'Read my DNA overview',
    operation: 'dnaReport',
    scopes: ['health:dna:read'],
    kind: 'read',
  },
  {
    name: 'dna_gene_read',
    title: 'Read a gene and my genotypes there',
    operation: 'dnaGene',
    scopes: ['health:dna:read'],
    kind: 'read',
  },
  {
    name: 'dna_variants_lookup',
    title: 'Look up my genotypes at rsIDs',
    operation: 'dnaVariants',
    scopes: ['health:dna:read'],
    kind: 'read',
  },
  {
    name: 'dna_knowledge_lookup',
    title: 'Search the curated DNA cards',
    operation: 'dnaKnowledge',
    scopes: ['health:dna:read'],
    kind: 'read',
  },
  {
    name: 'dna_medicines_start',
    title: 'Start my medicines report',
    operation: 'startDnaMedicines',
    scopes: ['health:dna:read'],
    kind: 'write',
  },
  {
    name: 'dna_medicines_read',
    title: 'Read my medicines report',
    operation: 'dnaMedicines',
    scopes: ['health:dna:read'],
    kind: 'read',
  },
  {
    name: 'dna_hla_start',
    title: 'Start my HLA tag report',
    operation: 'startDnaHla',
    scopes: ['health:dna:read'],
    kind: 'write',
  },
  {
    name: 'dna_hla_read',
    title: 'Read my HLA tag report',
    operation: 'dnaHla',
    scopes: ['health:dna:read'],
    kind: 'read',
  },
  {
    name: 'dna_data_delete',
    title: 'Delete my DNA data',
    operation: 'deleteDnaData',
    scopes: ['health:dna:write'],
    kind: 'deletes',
  },
];
